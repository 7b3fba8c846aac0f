package io.ferry.transport.udt;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The one correction Ferry makes to barchart-udt 2.3.0's bundled JNI library before loading it.
 *
 * <p>barchart's {@code JNICCCFactory} keeps the Java congestion-control factory as a JNI <em>global</em>
 * reference but its destructor releases it with {@code DeleteLocalRef} ({@code JNICCCFactory.cpp}); the
 * destructor runs on every {@code setOption(UDT_CC, factory)} and whenever UDT deletes a socket that had
 * one. HotSpot up to JDK 20 nulls the slot (a leaked global, nothing worse). From JDK 21 HotSpot tags
 * global references, so {@code DeleteLocalRef} stores eight zero bytes two bytes into the global slot:
 * it corrupts that reference and the next one, and the JVM crashes later wherever either is used
 * ({@code -Xcheck:jni} reports "Invalid local JNI handle passed to DeleteLocalRef").
 *
 * <p>The fix is one byte per compiled destructor (three per library: the complete, base and deleting
 * destructors): the call through the {@code JNIEnv} function table moves from {@code DeleteLocalRef}
 * (slot 23) to {@code DeleteGlobalRef} (slot 22), which is what the source meant. It is applied only to a
 * library whose SHA-256 is the one shipped in barchart-udt-bundle 2.3.0 and only where every byte at the
 * call sites is the expected instruction; anything else is loaded unchanged and reported as uncorrected.
 */
final class NativeLibraryFix {

    /** One call site: the offset of the byte that holds the function-table displacement. */
    private record Site(int offset, byte[] instruction, int displacementIndex, byte to) {
    }

    private record Library(String sha256, List<Site> sites) {
    }

    // x86-64: call *0xb8(%rdx) = ff 92 b8 00 00 00 (8-byte slots: 23 * 8 = 0xb8, 22 * 8 = 0xb0)
    private static final byte[] CALL_RDX_B8 = {(byte) 0xff, (byte) 0x92, (byte) 0xb8, 0, 0, 0};
    // i386: call *0x5c(%ecx) = ff 51 5c (4-byte slots: 23 * 4 = 0x5c, 22 * 4 = 0x58)
    private static final byte[] CALL_ECX_5C = {(byte) 0xff, 0x51, 0x5c};

    private static final Map<String, Library> KNOWN = Map.of(
            "amd64-Linux-gpp/jni/libbarchart-udt-core-2.3.0-SNAPSHOT.so", new Library(
                    "aee9b9eeaea0f0f9b80190de5067fe9f370b11ec3dfd14e016fe8898042a0bc4",
                    List.of(amd64(0x149be), amd64(0x14a1e), amd64(0x14a7e))),
            "i386-Linux-gpp/jni/libbarchart-udt-core-2.3.0-SNAPSHOT.so", new Library(
                    "cf81d7dbc8a47eb2ea5a29856de9b507e80409389835bb6b220fb5bff7101b97",
                    List.of(i386(0x1083d), i386(0x108ad), i386(0x1091d))));

    private NativeLibraryFix() {
    }

    private static Site amd64(int instruction) {
        return new Site(instruction, CALL_RDX_B8, 2, (byte) 0xb0);
    }

    private static Site i386(int instruction) {
        return new Site(instruction, CALL_ECX_5C, 2, (byte) 0x58);
    }

    /** Whether {@code resourcePath} names barchart's core library (the one with the defect). */
    static boolean isCoreLibrary(String resourcePath) {
        return resourcePath.contains("barchart-udt-core");
    }

    /**
     * Returns the corrected library, or null when {@code resourcePath}/{@code bytes} are not a library
     * this class knows byte for byte (then nothing is changed).
     */
    static byte[] correct(String resourcePath, byte[] bytes) {
        for (Map.Entry<String, Library> known : KNOWN.entrySet()) {
            if (resourcePath.endsWith(known.getKey())) {
                Library library = known.getValue();
                if (!library.sha256().equals(sha256(bytes))) {
                    return null;
                }
                byte[] fixed = bytes.clone();
                for (Site site : library.sites()) {
                    if (!matches(fixed, site.offset(), site.instruction())) {
                        return null;
                    }
                    fixed[site.offset() + site.displacementIndex()] = site.to();
                }
                return fixed;
            }
        }
        return null;
    }

    private static boolean matches(byte[] bytes, int offset, byte[] expected) {
        if (offset < 0 || offset + expected.length > bytes.length) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            if (bytes[offset + i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
