package io.ferry.transport;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** ferry-bom has no parent (so importing it brings no build versions): its versions must match the build's. */
class BomAlignmentTest {

    private static final Path ROOT = Path.of("..");

    @Test
    void theBomNamesTheVersionsTheBuildUses() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        String bom = Files.readString(ROOT.resolve("ferry-bom/pom.xml"));
        assertEquals(tag(parent, "version"), tag(bom, "ferry.version"), "Ferry's version");
        assertEquals(tag(parent, "netty.version"), tag(bom, "netty.version"), "Netty's version");
        assertEquals(tag(parent, "micrometer.version"), tag(bom, "micrometer.version"), "Micrometer's version");
    }

    @Test
    void theEnginesBomNamesTheVersionsTheEngineModulesAreBuiltWith() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        String engines = Files.readString(ROOT.resolve("ferry-engines-bom/pom.xml"));
        String flight = Files.readString(ROOT.resolve("ferry-flight/pom.xml"));
        assertEquals(tag(parent, "version"), tag(engines, "ferry.version"), "Ferry's version");
        assertEquals(tag(parent, "grpc.version"), tag(engines, "grpc.version"), "gRPC's version");
        assertEquals(tag(parent, "vertx.version"), tag(engines, "vertx.version"), "Vert.x's version");
        assertEquals(tag(parent, "reactor.version"), tag(engines, "reactor.version"), "Reactor's version");
        assertEquals(tag(flight, "arrow.version"), tag(engines, "arrow.version"), "Arrow's version");
    }

    /** The first element {@code <name>...</name>} after the project's own coordinates. */
    private static String tag(String pom, String name) {
        String body = pom.substring(pom.indexOf("<artifactId>"));
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">").matcher(body);
        if (!m.find()) {
            throw new AssertionError("no <" + name + "> in the POM");
        }
        return m.group(1).trim();
    }
}
