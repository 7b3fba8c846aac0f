package io.ferry.transport.udt;

import com.barchart.udt.lib.LibraryLoaderUDT;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * barchart-udt's library loader with {@link NativeLibraryFix} applied: barchart chooses the libraries for
 * this platform as usual; this class extracts each into the (private) target folder, corrects the core
 * library where it is one Ferry knows, and loads it. barchart instantiates it by name
 * ({@code com.barchart.udt.loader.class.name}), hence public with a public constructor; it is not API.
 */
public final class FixingLibraryLoader extends LibraryLoaderUDT {

    private static volatile boolean coreCorrected;

    /** Whether the core library loaded in this JVM had the JNI reference defect corrected. */
    static boolean coreCorrected() {
        return coreCorrected;
    }

    @Override
    protected void loadAll(List<String> sourceList, String targetFolder) throws Exception {
        for (String source : sourceList) {
            extract(source, Paths.get(targetFolder + source));
        }
        for (String source : sourceList) {
            System.load(Paths.get(targetFolder + source).toAbsolutePath().toString());
        }
    }

    private static void extract(String source, Path target) throws IOException {
        byte[] bytes;
        try (InputStream in = LibraryLoaderUDT.class.getResourceAsStream(source)) {
            if (in == null) {
                throw new IOException("resource not found: " + source);
            }
            bytes = in.readAllBytes();
        }
        if (NativeLibraryFix.isCoreLibrary(source)) {
            byte[] fixed = NativeLibraryFix.correct(source, bytes);
            if (fixed != null) {
                bytes = fixed;
                coreCorrected = true;
            }
        }
        Files.createDirectories(target.getParent());
        Files.write(target, bytes);
    }
}
