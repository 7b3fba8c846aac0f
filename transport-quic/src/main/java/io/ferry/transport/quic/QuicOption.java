package io.ferry.transport.quic;

import io.netty.channel.ChannelOption;
import io.netty.handler.codec.quic.QuicSslContext;

import java.time.Duration;

/**
 * Options only the QUIC transport has, beside the shared {@link io.ferry.transport.FerryChannelOption}s it
 * honours ({@code CONGESTION_CONTROL}, {@code RECEIVE_BUFFER_SIZE}, {@code PACKET_SIZE}, {@code CONNECT_TIMEOUT},
 * {@code LINGER}). See the module README for what each does and its default.
 *
 * @param <T> the option's value type
 */
public final class QuicOption<T> extends ChannelOption<T> {

    /**
     * How long a connection may hear nothing before it ends (RFC 9000 section 10.1's max_idle_timeout; default
     * 30 s, the lower of both ends' wins). QUIC's own keep-alive is not sent, so an idle connection ends after it.
     */
    public static final QuicOption<Duration> IDLE_TIMEOUT = new QuicOption<>("QUIC_IDLE_TIMEOUT", Duration.class);

    /**
     * A listener's TLS: a server context built with {@code QuicSslContextBuilder.forServer(...)} whose
     * application protocols include {@value QuicTransport#APPLICATION_PROTOCOL}. Without it a listener presents a self-signed
     * certificate its transport made, whose fingerprint {@link QuicTransport#certificateFingerprint()} tells.
     */
    public static final QuicOption<QuicSslContext> SERVER_TLS = new QuicOption<>("QUIC_SERVER_TLS", QuicSslContext.class);

    /**
     * A client's TLS: a client context built with {@code QuicSslContextBuilder.forClient()} (its trust managers
     * or CAs, its own key for client authentication) whose application protocols include {@value QuicTransport#APPLICATION_PROTOCOL}.
     * The codec does not check the server's name against its certificate: trust CAs through
     * {@link io.ferry.transport.tls.HostCheckingTrustManager}, as {@code ferry send --ca} does.
     */
    public static final QuicOption<QuicSslContext> CLIENT_TLS = new QuicOption<>("QUIC_CLIENT_TLS", QuicSslContext.class);

    /**
     * A client trusts exactly the server certificate with this SHA-256 fingerprint ({@code sha256:HEX}, what
     * {@code ferry send --pin} takes). Without it, or {@link #CLIENT_TLS}, a client encrypts but does not
     * authenticate the server (any certificate is taken), as the README says.
     */
    public static final QuicOption<String> PIN = new QuicOption<>("QUIC_PIN", String.class);

    /**
     * Datagrams one {@code sendmsg} may carry with UDP GSO on Linux's epoll (default 16; 1 turns GSO off).
     */
    public static final QuicOption<Integer> GSO_SEGMENTS = new QuicOption<>("QUIC_GSO_SEGMENTS", Integer.class);

    private final Class<T> type;

    @SuppressWarnings("deprecation")
    private QuicOption(String name, Class<T> type) {
        super(name);
        this.type = type;
    }

    @Override
    public void validate(T value) {
        super.validate(value);
        if (!type.isInstance(value)) {
            throw new IllegalArgumentException(name() + " takes a " + type.getSimpleName() + ", got a " + value.getClass().getSimpleName());
        }
        if (this == IDLE_TIMEOUT) {
            Duration d = (Duration) value;
            if (d.isNegative() || d.isZero() || d.toMillis() > 600_000) {
                throw new IllegalArgumentException("QUIC_IDLE_TIMEOUT must be positive and at most 10 minutes, got " + d);
            }
        } else if (this == PIN) {
            io.ferry.transport.tls.Fingerprints.parse((String) value);
        } else if (this == GSO_SEGMENTS) {
            int n = (Integer) value;
            if (n < 1 || n > 64) {
                throw new IllegalArgumentException("QUIC_GSO_SEGMENTS must be from 1 to 64, got " + n);
            }
        }
    }
}
