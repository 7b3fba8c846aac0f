package io.ferry.transport.udt;

import io.ferry.transport.TransportUnavailableException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Loads barchart-udt's JNI library safely. barchart unpacks its {@code .so}/{@code .dll} into
 * {@code ./lib} under whatever directory the JVM was started from unless told otherwise; Ferry points it
 * at a fresh private temporary directory (owner-only permissions) and deletes that directory once the
 * library is mapped. On a platform barchart-udt 2.3.0 has no library for, loading fails with one message
 * naming the platform before barchart is touched.
 */
final class UdtNativeLibrary {

    /** barchart's system property for the extract location (see {@code com.barchart.udt.ResourceUDT}). */
    static final String EXTRACT_LOCATION_PROPERTY = "com.barchart.udt.library.extract.location";
    /** barchart's system property naming its library loader class (see {@code com.barchart.udt.ResourceUDT}). */
    static final String LOADER_CLASS_PROPERTY = "com.barchart.udt.loader.class.name";

    /** The platforms barchart-udt-bundle 2.3.0 carries a native library for, as {@code os/arch}. */
    private static final Set<String> BUNDLED = Set.of(
            "linux/amd64", "linux/x86_64", "linux/i386", "linux/x86", "linux/arm",
            "windows/amd64", "windows/x86_64", "windows/x86",
            "mac/x86_64", "mac/amd64", "mac/i386");

    private static final String BUNDLED_DESCRIPTION =
            "Linux x86-64, Linux x86, Linux 32-bit ARM, Windows x86-64, Windows x86, macOS x86-64 and macOS x86";

    private static boolean loaded;
    private static TransportUnavailableException failure;

    private UdtNativeLibrary() {
    }

    /** Loads the library once per JVM; later calls return at once or repeat the first failure. */
    static synchronized void load() {
        if (loaded) {
            return;
        }
        if (failure != null) {
            throw failure;
        }
        String os = System.getProperty("os.name", "unknown");
        String arch = System.getProperty("os.arch", "unknown");
        if (!isBundled(os, arch)) {
            failure = new TransportUnavailableException("UDT is not available on " + os + " " + arch
                    + ": barchart-udt 2.3.0 bundles its native library only for " + BUNDLED_DESCRIPTION);
            throw failure;
        }
        Path privateDir = null;
        try {
            if (System.getProperty(EXTRACT_LOCATION_PROPERTY) == null) {
                // Files.createTempDirectory gives rwx------ on POSIX file systems.
                privateDir = Files.createTempDirectory("ferry-udt-");
                System.setProperty(EXTRACT_LOCATION_PROPERTY, privateDir.toString());
            }
            if (System.getProperty(LOADER_CLASS_PROPERTY) == null) {
                System.setProperty(LOADER_CLASS_PROPERTY, FixingLibraryLoader.class.getName());
            }
            Class.forName("com.barchart.udt.SocketUDT", true, UdtNativeLibrary.class.getClassLoader());
            loaded = true;
        } catch (IOException e) {
            failure = new TransportUnavailableException("UDT: cannot create a private directory for barchart-udt's native library: " + e.getMessage(), e);
            throw failure;
        } catch (Throwable e) {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            failure = new TransportUnavailableException("UDT's native library (barchart-udt 2.3.0) failed to load on "
                    + os + " " + arch + ": " + root, e);
            throw failure;
        } finally {
            if (privateDir != null) {
                deleteQuietly(privateDir);
            }
        }
    }

    /**
     * Whether a Java congestion control ({@link PacedCcc}) may be handed to this JVM's UDT library: always
     * before JDK 21, and from JDK 21 on only when {@link NativeLibraryFix} corrected the library (Linux x86
     * and x86-64), since barchart's uncorrected factory destructor corrupts JNI global references there.
     */
    static boolean javaCongestionControlSafe() {
        try {
            load();
        } catch (RuntimeException unavailable) {
            return false;
        }
        return Runtime.version().feature() < 21 || FixingLibraryLoader.coreCorrected();
    }

    /** Why {@link #javaCongestionControlSafe()} is false, for error messages. */
    static String javaCongestionControlUnsafeBecause() {
        return "barchart-udt 2.3.0's native library releases a Java congestion control's JNI global reference as a local one,"
                + " which corrupts the JVM from JDK 21 on; Ferry corrects the library for Linux x86 and x86-64 only, and this is "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch") + " on JDK " + Runtime.version().feature();
    }

    static boolean isBundled(String osName, String arch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String family = os.startsWith("linux") ? "linux" : os.startsWith("windows") ? "windows"
                : os.startsWith("mac") ? "mac" : os;
        return BUNDLED.contains(family + "/" + arch.toLowerCase(Locale.ROOT));
    }

    /** A mapped library may be unlinked on Linux and macOS; where that fails (Windows) it goes at exit. */
    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException inUse) {
                    p.toFile().deleteOnExit();
                }
            });
        } catch (IOException e) {
            dir.toFile().deleteOnExit();
        }
    }
}
