package io.ferry.transport.udt;

import com.barchart.udt.OptionUDT;
import com.barchart.udt.SocketUDT;
import com.barchart.udt.TypeUDT;
import com.barchart.udt.lib.LibraryLoaderUDT;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** barchart's JNI library is corrected exactly where its factory destructor releases a global reference. */
class NativeLibraryFixTest {

    private static final String AMD64 = "/lib/amd64-Linux-gpp/jni/libbarchart-udt-core-2.3.0-SNAPSHOT.so";
    private static final String I386 = "/lib/i386-Linux-gpp/jni/libbarchart-udt-core-2.3.0-SNAPSHOT.so";

    @Test
    void theBundledLinuxLibrariesChangeInThreeDisplacementBytesOnly() throws IOException {
        assertOnlyDisplacementsChange(AMD64, (byte) 0xb8, (byte) 0xb0);
        assertOnlyDisplacementsChange(I386, (byte) 0x5c, (byte) 0x58);
    }

    private static void assertOnlyDisplacementsChange(String path, byte from, byte to) throws IOException {
        byte[] original = resource(path);
        byte[] fixed = NativeLibraryFix.correct(path, original);
        assertNotNull(fixed, path);
        assertEquals(original.length, fixed.length);
        List<Integer> changed = new ArrayList<>();
        for (int i = 0; i < original.length; i++) {
            if (original[i] != fixed[i]) {
                changed.add(i);
                assertEquals(from, original[i]);
                assertEquals(to, fixed[i]);
            }
        }
        assertEquals(3, changed.size(), "one call per destructor variant: " + changed);
    }

    @Test
    void aLibraryThatIsNotByteForByteTheBundledOneIsLeftAlone() throws IOException {
        byte[] original = resource(AMD64);
        byte[] other = original.clone();
        other[100] ^= 1;
        assertNull(NativeLibraryFix.correct(AMD64, other));
        assertNull(NativeLibraryFix.correct("/lib/x86_64-MacOSX-gpp/jni/libbarchart-udt-core-2.3.0-SNAPSHOT.jnilib", original));
        assertArrayEquals(resource(AMD64), original, "the input is never modified");
    }

    @Test
    @EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "x86_64"})
    void onLinuxX8664TheLoadedLibraryIsTheCorrectedOne() {
        UdtNativeLibrary.load();
        assertTrue(FixingLibraryLoader.coreCorrected());
        assertTrue(UdtNativeLibrary.javaCongestionControlSafe());
    }

    /**
     * Every setOption(UDT_CC, factory) runs the factory destructor once; uncorrected, on JDK 21+, this
     * corrupts global references and the collections that follow crash the JVM.
     */
    @Test
    void manyJavaCongestionControlsAndCollectionsLeaveTheJvmStanding() throws Exception {
        UdtNativeLibrary.load();
        if (!UdtNativeLibrary.javaCongestionControlSafe() && !Boolean.getBoolean("ferry.test.unsafe")) {
            return;
        }
        // UDT's runtime must be started (and is stopped again when nothing holds it)
        try (UdtRuntime.Hold ignored = UdtRuntime.hold()) {
            churn();
        }
    }

    private static void churn() throws Exception {
        for (int round = 0; round < 5; round++) {
            List<SocketUDT> sockets = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                SocketUDT socket = new SocketUDT(TypeUDT.STREAM);
                socket.setOption(OptionUDT.UDT_CC, new PacedCcc.Factory(UdtSettings.DEFAULT_MSS, 64));
                socket.setOption(OptionUDT.UDT_CC, new PacedCcc.Factory(UdtSettings.DEFAULT_MSS, 64));
                sockets.add(socket);
            }
            System.gc();
            for (SocketUDT socket : sockets) {
                socket.close();
            }
            System.gc();
        }
        SocketUDT after = new SocketUDT(TypeUDT.STREAM);
        assertTrue(after.id() > 0);
        after.close();
    }

    private static byte[] resource(String path) throws IOException {
        try (InputStream in = LibraryLoaderUDT.class.getResourceAsStream(path)) {
            assertNotNull(in, path);
            return in.readAllBytes();
        }
    }
}
