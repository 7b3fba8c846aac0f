package io.ferry.transport.ledbat.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CubicTest {
    private static final int MSS = 1000;

    @Test
    void afterALossTheWindowFollowsTheCubicCurveThroughItsPlateauAndBeyond() {
        long rtt = 100_000_000L;
        Cubic cc = new Cubic(new CongestionParameters(MSS, 100_000));
        AckClock path = new AckClock(cc, MSS, rtt);
        path.runUntilWindow(1000L * MSS);
        path.runFor(rtt / 2);
        double wMax = cc.cwndBytes() / (double) MSS;
        long lossAt = path.now();
        assertTrue(path.loss());
        assertEquals(wMax * Cubic.BETA, cc.cwndBytes() / (double) MSS, 1, "cwnd = beta * cwnd");
        assertEquals(wMax, cc.wMaxPackets(), 1e-9, "no earlier W_max: no fast convergence");
        double k = Math.cbrt(wMax * (1 - Cubic.BETA) / Cubic.C);
        assertEquals(k, cc.kSeconds(), 1e-9);

        double worst = 0;
        for (int i = 1; i <= (int) (2 * k * 10); i++) {
            path.runFor(rtt);
            double t = (path.now() - lossAt) / 1e9;
            double expected = Cubic.C * Math.pow(t - k, 3) + wMax;
            double cwnd = cc.cwndBytes() / (double) MSS;
            if (t > 2 * rtt / 1e9) {
                worst = Math.max(worst, Math.abs(cwnd - expected) / expected);
                assertEquals(expected, cwnd, 0.03 * expected, "t = " + t + " s");
            }
        }
        System.out.printf("cubic: W_max %.0f packets, K %.2f s, largest deviation from W(t) %.2f %%%n", wMax, k, 100 * worst);
        assertTrue(cc.cwndBytes() / (double) MSS > wMax * 1.2, "beyond K the window probes past W_max (W(2K) = 1.3 W_max)");
    }

    @Test
    void onAShortPathWithASmallWindowItTracksTheRenoEstimate() {
        long rtt = 10_000_000L;
        Cubic cc = new Cubic(new CongestionParameters(MSS, 100_000));
        AckClock path = new AckClock(cc, MSS, rtt);
        path.runUntilWindow(20L * MSS);
        double wMax = cc.cwndBytes() / (double) MSS;
        long lossAt = path.now();
        assertTrue(path.loss());
        double reno = cc.cwndBytes() / (double) MSS;
        path.runFor(rtt);
        for (int round = 1; round <= 50; round++) {
            path.runFor(rtt);
            // RFC 9438 4.3: alpha_cubic per round trip until W_est reaches the window before the loss, then 1
            reno += reno < wMax ? Cubic.ALPHA : 1;
            double cwnd = cc.cwndBytes() / (double) MSS;
            double t = (path.now() - lossAt) / 1e9;
            if (round < 5) {
                continue;
            }
            assertTrue(cc.wCubic(t) < cwnd, "in the Reno-friendly region: W_cubic(" + t + ") below cwnd " + cwnd);
            assertEquals(reno, cwnd, 0.05 * reno + 1, "round " + round);
            assertEquals(cc.renoEstimatePackets(), cwnd, 1.0, "cwnd is W_est");
        }
    }

    @Test
    void fastConvergenceLowersWMaxWhenTheWindowDidNotRegainIt() {
        long rtt = 100_000_000L;
        Cubic cc = new Cubic(new CongestionParameters(MSS, 100_000));
        AckClock path = new AckClock(cc, MSS, rtt);
        path.runUntilWindow(200L * MSS);
        path.runFor(rtt / 2);
        assertTrue(path.loss());
        double firstMax = cc.wMaxPackets();
        path.runFor(2 * rtt);
        double cwnd = cc.cwndBytes() / (double) MSS;
        assertTrue(cwnd < firstMax);
        assertTrue(path.loss());
        assertEquals(cwnd * (1 + Cubic.BETA) / 2, cc.wMaxPackets(), 0.5);
    }
}
