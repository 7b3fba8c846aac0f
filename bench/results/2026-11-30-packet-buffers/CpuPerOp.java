import io.ferry.bench.jmh.EngineStagesBenchmark;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;

/** Thread CPU nanoseconds per EngineStagesBenchmark.packet() call: a figure the soak's load beside it does not move much. */
public class CpuPerOp {
    public static void main(String[] args) throws Exception {
        String wire = args.length > 0 ? args[0] : "utp";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        var bean = ManagementFactory.getThreadMXBean();
        EngineStagesBenchmark b = new EngineStagesBenchmark();
        Field f = EngineStagesBenchmark.class.getDeclaredField("wire");
        f.setAccessible(true);
        f.set(b, wire);
        b.setUp();
        long sink = 0;
        for (int i = 0; i < 3_000_000; i++) sink += b.packet();
        StringBuilder out = new StringBuilder(wire);
        for (int r = 0; r < rounds; r++) {
            long c0 = bean.getCurrentThreadCpuTime();
            int n = 1_000_000;
            for (int i = 0; i < n; i++) sink += b.packet();
            out.append(String.format(" %.0f", (bean.getCurrentThreadCpuTime() - c0) / (double) n));
        }
        b.tearDown();
        System.out.println(out + " ns-cpu/op  (" + (sink & 1) + ")");
    }
}
