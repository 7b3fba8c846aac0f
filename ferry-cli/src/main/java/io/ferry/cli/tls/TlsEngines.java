package io.ferry.cli.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContext;
import io.netty.handler.ssl.ReferenceCountedOpenSslContext;
import io.netty.handler.ssl.SslContext;

/**
 * Which TLS implementation a context runs on. Netty picks BoringSSL (netty-tcnative) when it loads and
 * the JDK's engine otherwise; ferry.jar names the tcnative jars in its manifest's Class-Path
 * ({@code lib/} beside the jar, where the build puts them), so {@code java -jar ferry.jar} uses BoringSSL
 * on Linux x86-64 and aarch64 and the JDK elsewhere or when {@code lib/} is missing.
 */
public final class TlsEngines {

    private TlsEngines() {
    }

    /** A few words naming the engine of {@code context}, for the line a receiver prints at start. */
    public static String describe(SslContext context) {
        if (context instanceof ReferenceCountedOpenSslContext || context instanceof OpenSslContext) {
            return OpenSsl.versionString() + " (netty-tcnative)";
        }
        Throwable why = OpenSsl.unavailabilityCause();
        return "the JDK's (netty-tcnative " + (why == null ? "not used" : "not loaded: " + why.getClass().getSimpleName()) + ")";
    }
}
