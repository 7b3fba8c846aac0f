package io.ferry.transport.tls;

import io.netty.util.NetUtil;

import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import java.net.IDN;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Trusts a server whose chain the given trust manager accepts <em>and</em> whose certificate names the host
 * the client dialed: the JDK's "HTTPS" endpoint identification (RFC 2818 section 3.1, RFC 6125 section 6) for
 * TLS stacks that do not do it themselves. Netty's QUIC engine (BoringSSL under quiche) hands the JDK trust
 * manager no handshake session to read the host from, so a QUIC client that trusts CAs checks names here. An IP
 * address must be one of the certificate's IP names; a host name one of its DNS names, a wildcard standing for
 * the whole left-most label only, or, without DNS names, its most specific common name, as the JDK does.
 */
public final class HostCheckingTrustManager extends OneSidedTrustManager {

    private static final int DNS_NAME = 2;
    private static final int IP_ADDRESS = 7;

    private final X509TrustManager chain;
    private final String host;

    /** @param chain what checks the chain (CAs, dates); @param host the host the client dialed */
    public HostCheckingTrustManager(X509TrustManager chain, String host) {
        super("receivers");
        this.chain = chain;
        this.host = host;
    }

    /** The X.509 trust manager among {@code managers}. */
    public static X509TrustManager x509(TrustManager[] managers) {
        for (TrustManager m : managers) {
            if (m instanceof X509TrustManager x) {
                return x;
            }
        }
        throw new IllegalArgumentException("no X.509 trust manager among " + List.of(managers));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] certificates, String authType) throws CertificateException {
        chain.checkServerTrusted(certificates, authType);
        if (!matches(certificates[0], host)) {
            throw new CertificateException("the receiver's certificate does not name " + host + " (its names: " + names(certificates[0]) + ")");
        }
    }

    /** Whether {@code certificate} names {@code host} (a DNS name or an IP address literal). */
    static boolean matches(X509Certificate certificate, String host) throws CertificateException {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        Collection<List<?>> sans = subjectAltNames(certificate);
        if (NetUtil.isValidIpV4Address(h) || NetUtil.isValidIpV6Address(h)) {
            byte[] wanted = NetUtil.createByteArrayFromIpAddressString(h);
            for (List<?> san : sans) {
                if ((Integer) san.get(0) == IP_ADDRESS
                        && java.util.Arrays.equals(wanted, NetUtil.createByteArrayFromIpAddressString((String) san.get(1)))) {
                    return true;
                }
            }
            return false;
        }
        String name = ascii(h);
        boolean anyDns = false;
        for (List<?> san : sans) {
            if ((Integer) san.get(0) == DNS_NAME) {
                anyDns = true;
                if (dnsMatches(ascii((String) san.get(1)), name)) {
                    return true;
                }
            }
        }
        if (anyDns) {
            return false;
        }
        String cn = commonName(certificate);
        return cn != null && dnsMatches(ascii(cn), name);
    }

    /** RFC 6125 section 6.4.3: exact, or {@code *.rest} standing for exactly one left-most label. */
    static boolean dnsMatches(String pattern, String name) {
        if (!pattern.startsWith("*.")) {
            return pattern.equals(name);
        }
        String rest = pattern.substring(1); // ".example.com"
        int dot = name.indexOf('.');
        return dot > 0 && name.substring(dot).equals(rest) && rest.indexOf('.', 1) > 0;
    }

    private static String ascii(String name) {
        String n = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
        try {
            return IDN.toASCII(n).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            return n.toLowerCase(Locale.ROOT);
        }
    }

    private static Collection<List<?>> subjectAltNames(X509Certificate certificate) throws CertificateException {
        try {
            Collection<List<?>> sans = certificate.getSubjectAlternativeNames();
            return sans == null ? List.of() : sans;
        } catch (CertificateParsingException e) {
            throw new CertificateException("the receiver's certificate has unreadable names: " + e.getMessage(), e);
        }
    }

    /** The most specific (last) CN of the subject, or null. */
    private static String commonName(X509Certificate certificate) {
        try {
            List<Rdn> rdns = new LdapName(certificate.getSubjectX500Principal().getName()).getRdns();
            for (int i = rdns.size() - 1; i >= 0; i--) { // index 0 is the right-most RDN: the most specific CN comes last
                Rdn r = rdns.get(i);
                if ("CN".equalsIgnoreCase(r.getType())) {
                    return r.getValue().toString();
                }
            }
        } catch (InvalidNameException e) {
            return null;
        }
        return null;
    }

    private static String names(X509Certificate certificate) throws CertificateException {
        StringBuilder s = new StringBuilder();
        for (List<?> san : subjectAltNames(certificate)) {
            if ((Integer) san.get(0) == DNS_NAME || (Integer) san.get(0) == IP_ADDRESS) {
                s.append(s.length() == 0 ? "" : ", ").append(san.get(1));
            }
        }
        return s.length() == 0 ? "CN=" + commonName(certificate) : s.toString();
    }
}
