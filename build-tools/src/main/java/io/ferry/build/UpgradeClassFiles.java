package io.ferry.build;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Rewrites the class files of a jar older than Java 6 (major version below 50) under the given package
 * prefixes as Java 8 class files with stack map frames, in place; every other entry is copied as it is.
 *
 * <p>Why: JDK 17's class-data-sharing archive (which the {@code ferry} launcher makes) skips class files older
 * than Java 6, and picocli ships its classes as Java 5. A fresh {@code ferry} on JDK 17 then loaded 141 of
 * them from the jar and verified them with the old inferencing verifier: 55 ms of every start. Rewritten, they
 * come from the archive (a 1 KB send 0.21 to 0.18 s). The bytecode is unchanged; only the version and the
 * frames the type-checking verifier needs are new.
 *
 * <p>Usage: {@code UpgradeClassFiles JAR PREFIX...}, e.g. {@code ferry.jar picocli/}.
 */
public final class UpgradeClassFiles {

    /** Class files below this major version (Java 6) are rewritten. */
    static final int OLDEST_KEPT = 50;

    private UpgradeClassFiles() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: UpgradeClassFiles JAR PREFIX... (e.g. ferry.jar picocli/)");
        }
        Path jar = Path.of(args[0]);
        String[] prefixes = java.util.Arrays.copyOfRange(args, 1, args.length);
        int upgraded = upgrade(jar, prefixes);
        System.out.println("UpgradeClassFiles: " + upgraded + " class files under " + String.join(", ", prefixes)
                + " in " + jar + " rewritten as Java 8 class files");
    }

    /**
     * Rewrites {@code jar} in place; returns how many class files were rewritten.
     *
     * @throws IOException if the jar cannot be read or written, or a class cannot be rewritten (its name given)
     */
    public static int upgrade(Path jar, String... prefixes) throws IOException {
        Path tmp = Files.createTempFile(jar.toAbsolutePath().getParent(), jar.getFileName().toString(), ".tmp");
        int upgraded = 0;
        try (URLClassLoader types = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
             InputStream raw = Files.newInputStream(jar);
             ZipInputStream in = new ZipInputStream(raw);
             OutputStream rawOut = Files.newOutputStream(tmp);
             ZipOutputStream out = new ZipOutputStream(rawOut)) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                byte[] bytes = in.readAllBytes();
                if (!entry.isDirectory() && entry.getName().endsWith(".class") && under(entry.getName(), prefixes)
                        && majorVersion(bytes) < OLDEST_KEPT) {
                    try {
                        bytes = upgrade(bytes, types);
                    } catch (RuntimeException e) {
                        throw new IOException("cannot rewrite " + entry.getName() + " in " + jar + ": " + e, e);
                    }
                    upgraded++;
                }
                ZipEntry copy = new ZipEntry(entry.getName());
                copy.setTime(entry.getTime());
                out.putNextEntry(copy);
                out.write(bytes);
                out.closeEntry();
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING);
        return upgraded;
    }

    /** One class file as Java 8, frames computed (the common super class of two types looked up in {@code types}). */
    static byte[] upgrade(byte[] classFile, ClassLoader types) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected ClassLoader getClassLoader() {
                return types;
            }
        };
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
                super.visit(Opcodes.V1_8, access, name, signature, superName, interfaces);
            }
        }, ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }

    /** The major version of a class file (bytes 6 and 7). */
    static int majorVersion(byte[] classFile) {
        if (classFile.length < 8 || (classFile[0] & 0xFF) != 0xCA || (classFile[1] & 0xFF) != 0xFE) {
            throw new IllegalArgumentException("not a class file");
        }
        return (classFile[6] & 0xFF) << 8 | (classFile[7] & 0xFF);
    }

    private static boolean under(String name, String[] prefixes) {
        for (String p : prefixes) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }
}
