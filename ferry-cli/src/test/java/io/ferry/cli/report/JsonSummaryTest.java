package io.ferry.cli.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The summaries' JSON, read back by an independent parser (Jackson's, in the tests only). */
class JsonSummaryTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void namesWithQuotesBackslashesControlCharactersAndAnyUnicodeReadBackUnchanged() throws Exception {
        String nasty = "a \"quoted\" \\ name\n\t\r\b\f\u0000\u001f\u007f \u2028\u2029 é 日本 \uD83D\uDE80 end";
        JsonNode read = JSON.readTree(JsonSummary.write(Map.of("name", nasty)));
        assertEquals(nasty, read.get("name").asText());
    }

    @Test
    void aLoneSurrogateIsEscapedSoTheLineStillParses() throws Exception {
        String broken = "x\uD800y\uDC00";
        String line = JsonSummary.write(Map.of("name", broken));
        assertTrue(line.contains("\\ud800") && line.contains("\\udc00"), line);
        assertEquals(broken, JSON.readTree(line).get("name").asText());
    }

    @Test
    void recordsBecomeObjectsWithTheirNullComponentsLeftOut() throws Exception {
        JsonSummary.Connection c = new JsonSummary.Connection(10L, null, 1.5, null, null, 0L, null, null);
        JsonNode read = JSON.readTree(JsonSummary.write(c));
        assertEquals(10, read.get("bytesSent").asLong());
        assertEquals(1.5, read.get("rttMillis").asDouble());
        assertEquals(0, read.get("retransmissions").asLong());
        assertFalse(read.has("bytesReceived"), "absent values are left out, not written as 0 or null");
        assertEquals(3, read.size());
    }

    @Test
    void listsMapsNumbersAndBooleansKeepTheirTypes() throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", false);
        m.put("tiny", 1.0e-7);
        m.put("big", Long.MAX_VALUE);
        m.put("nan", Double.NaN);
        m.put("empty", List.of());
        m.put("nested", List.of(Map.of(), List.of(1, 2)));
        JsonNode read = JSON.readTree(JsonSummary.write(m));
        assertTrue(read.get("ok").isBoolean());
        assertEquals(1.0e-7, read.get("tiny").asDouble());
        assertEquals(Long.MAX_VALUE, read.get("big").asLong());
        assertEquals("NaN", read.get("nan").asText(), "JSON has no NaN: written as a string");
        assertEquals(0, read.get("empty").size());
        assertEquals(0, read.get("nested").get(0).size());
        assertEquals(2, read.get("nested").get(1).get(1).asInt());
    }

    @Test
    void aValueWithNoJsonFormIsAnErrorNotAGuess() {
        assertThrows(IllegalArgumentException.class, () -> JsonSummary.write(Map.of("x", new Object())));
    }
}
