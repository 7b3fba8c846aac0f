package io.ferry.transport.udt.proto.cc;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link DelayRateControl} in virtual time, over a fluid model of one bottleneck: a link of a given
 * rate behind a drop-tail queue, a base RTT, random loss on the wire, and UDT's way of reporting (an
 * RTT smoothed 7/8 per acknowledgement every 10 ms, losses reported one round trip late). Nothing here
 * depends on the speed of the machine.
 */
class DelayRateControlTest {

    private static final int MSS = 1500;

    /** One bottleneck, stepped 1 ms at a time. */
    static final class Path {
        final double linkPps;
        final double queueLimit;
        final double baseRttMs;
        final double randomLoss;
        final SplittableRandom random = new SplittableRandom(42);

        double queue;
        double srtt;
        long sent;
        long lost;
        long delivered;
        double sentInWindow;
        double deliveredInWindow;
        double queueMsInWindow;
        int windowSteps;
        final ArrayDeque<long[]> lossReports = new ArrayDeque<>();
        long reportedLost;
        double sentFraction;
        double lostFraction;
        /** A loss-based flow sharing the queue, or null. */
        LossBasedFlow tcp;

        Path(double linkMbit, double queueMs, double baseRttMs, double randomLoss) {
            this.linkPps = linkMbit * 1e6 / 8 / MSS;
            this.queueLimit = Math.max(1, linkPps * queueMs / 1000);
            this.baseRttMs = baseRttMs;
            this.randomLoss = randomLoss;
            this.srtt = 100; // UDT's guess until its first measurement, then smoothed 7/8 per acknowledgement
        }

        double queueMs() {
            return queue / linkPps * 1000;
        }

        /** Sends at {@code pps} for 1 ms. */
        void step(double pps, long t) {
            double offered = pps / 1000;
            sentFraction += offered;
            long whole = (long) sentFraction;
            sentFraction -= whole;
            sent += whole;
            sentInWindow += whole;
            double randomLost = 0;
            for (long i = 0; i < whole; i++) {
                if (random.nextDouble() < randomLoss) {
                    randomLost++;
                }
            }
            double ours = whole - randomLost;
            double theirs = tcp == null ? 0 : tcp.offer(t, baseRttMs + queueMs());
            double arriving = ours + theirs;
            double overflow = Math.max(0, queue + arriving - linkPps / 1000 - queueLimit);
            double out = Math.min(queue + arriving - overflow, linkPps / 1000);
            queue = queue + arriving - overflow - out;
            // a drop-tail FIFO: each flow loses and is served in proportion to what it brings
            double ourShare = arriving > 0 ? ours / arriving : 1;
            if (tcp != null) {
                tcp.served(t, out * (1 - ourShare), overflow * (1 - ourShare), baseRttMs + queueMs());
            }
            overflow *= ourShare;
            out *= ourShare;
            delivered += (long) out;
            deliveredInWindow += out;
            queueMsInWindow += queueMs();
            windowSteps++;
            lostFraction += randomLost + overflow;
            long wholeLost = (long) lostFraction;
            lostFraction -= wholeLost;
            lost += wholeLost;
            // the receiver's loss report reaches the sender a round trip later
            lossReports.add(new long[]{t + (long) (baseRttMs + queueMs()), lost});
            while (!lossReports.isEmpty() && lossReports.peek()[0] <= t) {
                reportedLost = lossReports.poll()[1];
            }
            if (t % 10 == 0) {
                srtt = (srtt * 7 + baseRttMs + queueMs()) / 8;
            }
        }

        void resetWindow() {
            sentInWindow = deliveredInWindow = queueMsInWindow = 0;
            if (tcp != null) {
                tcp.deliveredInWindow = 0;
            }
            windowSteps = 0;
        }

        double deliveredMbit() {
            return deliveredInWindow * MSS * 8 / (windowSteps / 1000.0) / 1e6;
        }

        double meanQueueMs() {
            return queueMsInWindow / windowSteps;
        }
    }

    /**
     * A loss-based TCP flow in the same model: a window sent once per round trip, one packet more per
     * window acknowledged, and a cut to 70 % (CUBIC's) at most once per round trip when it learns, a
     * round trip later, that the queue dropped some of it.
     */
    static final class LossBasedFlow {
        double cwnd = 10;
        double owed;
        double deliveredInWindow;
        long lossSeenAt = Long.MIN_VALUE;
        long lastCut = Long.MIN_VALUE / 2;
        final ArrayDeque<Long> lossReports = new ArrayDeque<>();

        double offer(long t, double rttMs) {
            while (!lossReports.isEmpty() && lossReports.peek() <= t) {
                lossReports.poll();
                if (t - lastCut >= rttMs) {
                    cwnd = Math.max(2, cwnd * 0.7);
                    lastCut = t;
                }
            }
            owed += cwnd / rttMs;
            double now = Math.floor(owed);
            owed -= now;
            return now;
        }

        void served(long t, double out, double dropped, double rttMs) {
            deliveredInWindow += out;
            cwnd += out / cwnd;
            if (dropped > 0.01) {
                lossReports.add(t + (long) rttMs);
            }
        }

        double deliveredMbit(int windowSteps) {
            return deliveredInWindow * MSS * 8 / (windowSteps / 1000.0) / 1e6;
        }
    }

    /** Runs one flow over {@code path} for {@code seconds}, measuring the last {@code measured} seconds. */
    private static DelayRateControl run(Path path, DelayRateControl control, int seconds, int measured) {
        long pps = control.bytesPerSecond() / MSS;
        double rate = (double) control.bytesPerSecond() / MSS;
        for (long t = 0; t < seconds * 1000L; t++) {
            if (t == (seconds - measured) * 1000L) {
                path.resetWindow();
            }
            path.step(rate, t);
            if (t % 10 == 0) {
                long acked = path.delivered;
                rate = (double) control.onSample(t * 1_000_000L, path.srtt, path.sent, path.reportedLost, acked, t / 10) / MSS;
            }
        }
        assertTrue(pps > 0);
        return control;
    }

    @Test
    void fillsALongFatPipeAndKeepsItsQueueNearTheTarget() {
        // the seed's buffer-sweep link: 200 Mbit/s, 150 ms, a queue of one bandwidth-delay product
        Path path = new Path(200, 150, 150, 0);
        DelayRateControl control = run(path, new DelayRateControl(MSS, -1), 30, 20);
        assertTrue(path.deliveredMbit() >= 0.9 * 200, "link use " + path.deliveredMbit() + " Mbit/s; " + control);
        assertTrue(path.meanQueueMs() <= 2 * DelayRateControl.MAX_TARGET_MS, "mean queue " + path.meanQueueMs() + " ms; " + control);
        assertEquals(0, control.lossCuts(), control.toString());
    }

    @Test
    void randomLossThatBuildsNoQueueDoesNotCutTheRate() {
        // the seed's hard path, 25 % loss and 50 ms, on a 100 Mbit/s link with a deep queue
        Path path = new Path(100, 150, 50, 0.25);
        DelayRateControl control = run(path, new DelayRateControl(MSS, -1), 20, 10);
        assertEquals(0, control.lossCuts(), control.toString());
        assertTrue(path.deliveredMbit() >= 0.9 * 100, "link use " + path.deliveredMbit() + " Mbit/s; " + control);
    }

    @Test
    void randomLossOnAFullLinkStillFillsIt() {
        Path path = new Path(100, 150, 20, 0.01);
        DelayRateControl control = run(path, new DelayRateControl(MSS, -1), 20, 10);
        assertTrue(path.deliveredMbit() >= 0.9 * 100 * 0.99, "link use " + path.deliveredMbit() + " Mbit/s; " + control);
        assertTrue(path.meanQueueMs() <= 2 * 5 + 1, "mean queue " + path.meanQueueMs() + " ms; " + control);
    }

    @Test
    void aBufferShallowerThanTheTargetOverflowsAndTheLossCutsTheRate() {
        // a 2 ms buffer: the queue never reaches the 5 ms target, only the overflow tells
        Path path = new Path(100, 2, 20, 0);
        DelayRateControl control = run(path, new DelayRateControl(MSS, -1), 20, 10);
        assertTrue(control.lossCuts() > 0, control.toString());
        double lossRate = (double) path.lost / path.sent;
        assertTrue(lossRate < 0.05, "loss " + lossRate + "; " + control);
        assertTrue(path.deliveredMbit() >= 0.6 * 100, "link use " + path.deliveredMbit() + " Mbit/s; " + control);
    }

    @Test
    void behindAShallowBufferItLeavesALossBasedFlowItsShare() {
        // study 3c: one CUBIC flow and UDT behind a 2 ms buffer, where the queue never shows; each keeps a quarter
        Path path = new Path(100, 2, 20, 0);
        path.tcp = new LossBasedFlow();
        DelayRateControl control = run(path, new DelayRateControl(MSS, -1), 40, 30);
        double tcp = path.tcp.deliveredMbit(path.windowSteps);
        assertTrue(tcp >= 25, "TCP " + tcp + " Mbit/s beside UDT's " + path.deliveredMbit() + "; " + control);
        assertTrue(path.deliveredMbit() >= 25, "UDT " + path.deliveredMbit() + " Mbit/s beside TCP's " + tcp + "; " + control);
    }

    @Test
    void aCeilingTheUserSetHolds() {
        Path path = new Path(1000, 100, 20, 0);
        DelayRateControl control = run(path, new DelayRateControl(MSS, 1_000_000), 5, 3);
        assertEquals(1_000_000, control.bytesPerSecond(), 1_000_000 * 0.001);
        assertTrue(path.deliveredMbit() <= 8.1, path.deliveredMbit() + " Mbit/s");
    }

    @Test
    void aSenderThatCannotKeepUpDoesNotRaiseTheRateWithoutBound() {
        DelayRateControl control = new DelayRateControl(MSS, -1);
        long sent = 0;
        long acked = 0;
        for (long t = 0; t < 10_000; t += 10) {
            // the application hands UDT 100 packets a second, whatever the rate
            sent += 1;
            acked = sent;
            control.onSample(t * 1_000_000L, 20, sent, 0, acked, t / 10);
        }
        assertTrue(control.bytesPerSecond() <= 2 * DelayRateControl.INITIAL_BYTES_PER_SECOND, control.toString());
    }

    @Test
    void nothingChangesBeforeTheFirstAcknowledgementAndOnlyTheAcknowledgementsRaiseTheRateWhileUdtsRttConverges() {
        DelayRateControl control = new DelayRateControl(MSS, -1);
        for (long t = 0; t < 2000; t += 10) {
            assertEquals(DelayRateControl.INITIAL_BYTES_PER_SECOND, control.onSample(t * 1_000_000L, 100, t, 0, 0, 0), 1);
        }
        double rtt = 100;
        long t = 2000;
        // acknowledged at 1000 packets a second, UDT's RTT still its guess (it measures from its second
        // acknowledgement on): the rate may grow by 1.5 while 80 % of it is acknowledged, never further
        double ceiling = 1000 / DelayRateControl.WARM_UP_ACKED_SHARE * DelayRateControl.STARTUP_GAIN * MSS;
        for (; t < 2300; t += 10) {
            assertTrue(control.onSample(t * 1_000_000L, rtt, t, 0, t - 2000, (t - 2000) / 10) <= ceiling);
        }
        // a 150 ms path, seen through UDT's smoothing: climbing from its 100 ms guess, the same holds
        for (; rtt < 140; t += 10) {
            rtt = (rtt * 7 + 150) / 8;
            assertTrue(control.onSample(t * 1_000_000L, rtt, t, 0, t - 2000, (t - 2000) / 10) <= ceiling);
        }
        assertTrue(control.bytesPerSecond() > DelayRateControl.INITIAL_BYTES_PER_SECOND, "acknowledged faster than sent: it grew");
        for (; t < 3000; t += 10) {
            rtt = (rtt * 7 + 150) / 8;
            control.onSample(t * 1_000_000L, rtt, t, 0, t - 2000, (t - 2000) / 10);
        }
        assertEquals(150, control.minRttMillis(), 150 * 0.03, "the base RTT is the path's, not UDT's early guess");
        assertTrue(control.inStartup());
    }

    /** Acknowledgements {@link #handshake} brings. */
    static final int HANDSHAKE_ACKS = 5;

    /**
     * A handshake's first second: a small message every 200 ms, one acknowledgement each, each moving
     * UDT's reading (from its 100 ms guess) by {@code step}. Returns the reading after it.
     */
    private static double handshake(DelayRateControl control, java.util.function.DoubleUnaryOperator step) {
        double reading = 100;
        long sent = 0;
        for (long t = 0; t < 1000; t += 10) {
            if (t % 200 == 100) {
                sent++;
                reading = step.applyAsDouble(reading);
            }
            control.onSample(t * 1_000_000L, reading, sent, 0, sent, sent);
        }
        return reading;
    }

    @Test
    void sparseAcknowledgementsOfAHandshakeDoNotPassForTheBaseRtt() {
        // ferry send's handshake: a few small messages, one acknowledgement each, over a 150 ms path;
        // UDT's RTT moves 1/8 of the way from its 100 ms guess per acknowledgement, so after the
        // handshake it reads about 105 ms. The bulk then brings an acknowledgement every 10 ms.
        DelayRateControl control = new DelayRateControl(MSS, -1);
        double rtt = handshake(control, r -> (r * 7 + 150) / 8);
        long sent = HANDSHAKE_ACKS;
        long acks = HANDSHAKE_ACKS;
        long t = 1000;
        for (; t < 4000; t += 10) {
            sent += 50;
            acks++;
            rtt = (rtt * 7 + 150) / 8;
            control.onSample(t * 1_000_000L, rtt, sent, 0, sent - 25, acks);
        }
        assertEquals(150, control.minRttMillis(), 150 * 0.03, "the base RTT is the path's, not the handshake's view of it");
        assertTrue(control.inStartup(), "no queue grew: still in start-up");
    }

    @Test
    void aPauseInTheAcknowledgementsWithPacketsInFlightDoesNotRestartTheWarmUp() {
        // a 100 ms path with loss behind a deep queue: the cumulative ACK waits 250 ms for each repaired
        // hole while 400 packets are out. Such pauses once restarted the warm-up for good (never leaving
        // it in 10 s, its growth unchecked); here it ends within its cap, one second.
        DelayRateControl control = new DelayRateControl(MSS, -1);
        control.inFlight(400);
        long sent = 0;
        long acked = 0;
        long acks = 0;
        for (long t = 0; t < 3000 && !(control.minRttMillis() > 0); t += 10) {
            sent += 15;
            boolean pause = t % 400 >= 150; // 250 ms of every 400 without acknowledgements
            if (t >= 100 && !pause) {
                acks++;
                acked += 15;
            }
            control.onSample(t * 1_000_000L, 101, sent, 0, acked, acks);
        }
        assertTrue(control.minRttMillis() > 0, "the warm-up ended: " + control);
    }

    @Test
    void anIdleSendersPauseStillRestartsTheWarmUp() {
        // the same pauses when nothing is in flight (a request, its answer, the next request) are a
        // protocol's handshake: the warm-up counts from the bulk's acknowledgements
        DelayRateControl control = new DelayRateControl(MSS, -1);
        control.inFlight(0);
        long acks = 0;
        for (long t = 0; t < 1500; t += 300) {
            acks++;
            control.onSample(t * 1_000_000L, 101, acks, 0, acks, acks);
        }
        assertTrue(Double.isNaN(control.minRttMillis()), "still warming up after a second of sparse acknowledgements: " + control);
    }

    @Test
    void aConnectionIdleSinceItsHandshakeLearnsThePathsRttWhenItsBulkBegins() {
        // a gRPC connection carrying a Flight DoGet on a 150 ms path: the handshake's few acknowledgements
        // raise this end's RTT to 125 ms on its own samples; seconds later the bulk's acknowledgements carry
        // the peer's view, still near UDT's 100 ms guess, which pulls the reading down to about 110 ms before
        // both converge, twice smoothed. A base taken from that dip (109-129 ms, by a warm-up that counted
        // from the handshake's first acknowledgement) had FAST cut the rate every round: 9 Mbit/s on 200.
        DelayRateControl control = new DelayRateControl(MSS, -1);
        double reading = handshake(control, r -> r + 5);
        long sent = HANDSHAKE_ACKS;
        long acks = HANDSHAKE_ACKS;
        long t = 1000;
        for (; t < 3000; t += 10) {
            control.onSample(t * 1_000_000L, reading, sent, 0, sent, acks);
        }
        double peer = 102;
        for (; t < 7000; t += 10) {
            sent += 200;
            acks += 3; // a full acknowledgement, which moves UDT's RTT, and two light ones every 10 ms
            peer = (peer * 7 + 150) / 8;
            reading = (reading * 7 + peer) / 8;
            control.onSample(t * 1_000_000L, reading, sent, 0, sent - 100, acks);
        }
        assertEquals(150, control.minRttMillis(), 150 * 0.03, "the base RTT is the path's, not the dip of the peer's early view");
    }

    @Test
    void aWarmUpWhoseRttFallsFromAHandshakesQueueEndsByItsCapAndTheBaseFollowsItDown() {
        DelayRateControl control = new DelayRateControl(MSS, -1);
        // UDT's RTT already above the path's at the first acknowledgement (it came down from a queue of
        // the handshake's), falling: below the warm-up's top it may as well be a dip of the peer's early
        // view, so the warm-up runs to its cap; the minimum then follows the reading down
        long t = 0;
        double rtt = 170;
        long sent = 0;
        for (; t < 1200; t += 10) {
            rtt = (rtt * 7 + 150) / 8;
            sent += 10;
            control.onSample(t * 1_000_000L, rtt, sent, 0, sent, t / 10);
        }
        assertTrue(control.rounds() >= 4, "measuring began by the cap: " + control.rounds() + " rounds");
        assertEquals(150, control.minRttMillis(), 1, "min RTT " + control.minRttMillis());
    }

    @Test
    void theWarmUpEndsOnceUdtsRttStopsClimbingNotAtItsCap() {
        DelayRateControl control = new DelayRateControl(MSS, -1);
        // a 120 ms path: UDT's reading climbs from its guess and settles within the first 40 acknowledgements
        long t = 0;
        double rtt = 100;
        for (; t < 400; t += 10) {
            rtt = (rtt * 7 + 120) / 8;
            control.onSample(t * 1_000_000L, rtt, t, 0, t, t / 10);
        }
        for (; t < 700; t += 10) {
            rtt = (rtt * 7 + 120) / 8;
            control.onSample(t * 1_000_000L, rtt, t, 0, t, t / 10);
            if (control.rounds() > 0) {
                break;
            }
        }
        assertTrue(t < 500 + 120, "measuring began once the reading settled, before the cap's first round: " + t + " ms");
        assertEquals(120, control.minRttMillis(), 120 * 0.02, "min RTT " + control.minRttMillis());
    }

    @Test
    void aStartUpOnALongFatPathEndsNearTheRateTheLinkPassesWithTheCumulativeAckHeldBackByItsLosses() {
        // 200 Mbit/s, 150 ms, one BDP of queue: the start-up's last round overflows it
        Path path = new Path(200, 150, 150, 0);
        DelayRateControl control = new DelayRateControl(MSS, -1);
        double rate = (double) control.bytesPerSecond() / MSS;
        long t = 0;
        // UDT counts as acknowledged what its cumulative ACK covers: a lost packet holds everything
        // after it back until its retransmission arrives, two round trips later
        long ackFrozenAt = -1;
        long repairedAt = -1;
        long lostBefore = 0;
        for (; t < 20_000 && (control.inStartup() || t < 1000); t++) {
            path.step(rate, t);
            if (path.lost > lostBefore) {
                lostBefore = path.lost;
                if (ackFrozenAt < 0) {
                    ackFrozenAt = path.delivered;
                }
                repairedAt = t + (long) (2 * (path.baseRttMs + path.queueMs()));
            }
            if (ackFrozenAt >= 0 && t >= repairedAt) {
                ackFrozenAt = -1;
            }
            long acked = ackFrozenAt >= 0 ? ackFrozenAt : path.delivered;
            if (t % 10 == 0) {
                rate = (double) control.onSample(t * 1_000_000L, path.srtt, path.sent, path.reportedLost, acked, t / 10) / MSS;
            }
        }
        assertTrue(!control.inStartup(), "the start-up ended");
        double exitMbit = rate * MSS * 8 / 1e6;
        assertTrue(exitMbit >= 0.8 * 200 * 0.85 && exitMbit <= 200, "start-up ended at " + exitMbit + " Mbit/s on a 200 Mbit/s link");
    }

    @Test
    void theWarmUpGrowsTheRateOnlyAsFastAsThePathAcknowledgesIt() {
        // a 150 ms path whose acknowledgements come a round trip after the packets: UDT's RTT still
        // climbs from its guess, and the rate follows what is acknowledged, not the clock
        DelayRateControl control = new DelayRateControl(MSS, -1);
        ArrayDeque<long[]> inFlight = new ArrayDeque<>();
        double rate = control.bytesPerSecond() / (double) MSS;
        long sent = 0;
        long acked = 0;
        double fraction = 0;
        double maxRate = rate;
        for (long t = 0; t < 600; t++) {
            fraction += rate / 1000;
            long now = (long) fraction;
            fraction -= now;
            sent += now;
            inFlight.add(new long[]{t + 150, sent});
            while (!inFlight.isEmpty() && inFlight.peek()[0] <= t) {
                acked = inFlight.poll()[1];
            }
            if (t % 10 == 0) {
                rate = control.onSample(t * 1_000_000L, 100, sent, 0, acked, t / 10) / (double) MSS;
                maxRate = Math.max(maxRate, rate);
            }
        }
        double initial = DelayRateControl.INITIAL_BYTES_PER_SECOND / (double) MSS;
        // one growth per round trip and acknowledgement window at most: three or four in 600 ms
        assertTrue(maxRate > initial * 2, "grew on acknowledgements: " + maxRate);
        assertTrue(maxRate <= initial * Math.pow(DelayRateControl.STARTUP_GAIN, 4) + 1, "grew faster than acknowledged: " + maxRate);
    }

    @Test
    void aStartUpBehindADeepQueueStopsNearTheRateThePathPassesNotTenTimesIt() {
        // 100 Mbit/s behind a 150 ms queue at 20 ms. What the sender learns comes a round trip late:
        // acknowledgements, and RTT samples that carry the queue the packet met on its way
        Path path = new Path(100, 150, 20, 0);
        DelayRateControl control = new DelayRateControl(MSS, -1);
        ArrayDeque<double[]> feedback = new ArrayDeque<>(); // {due, delivered, rtt sample}
        double rate = (double) control.bytesPerSecond() / MSS;
        double srtt = 100;
        long acked = 0;
        double maxMbit = 0;
        for (long t = 0; t < 5000; t++) {
            path.step(rate, t);
            double sample = path.baseRttMs + path.queueMs();
            feedback.add(new double[]{t + sample, path.delivered, sample});
            while (!feedback.isEmpty() && feedback.peek()[0] <= t) {
                double[] f = feedback.poll();
                acked = (long) f[1];
                if (t % 10 == 0) {
                    srtt = (srtt * 7 + f[2]) / 8;
                }
            }
            if (t % 10 == 0) {
                rate = (double) control.onSample(t * 1_000_000L, srtt, path.sent, path.reportedLost, acked, t / 10) / MSS;
                maxMbit = Math.max(maxMbit, rate * MSS * 8 / 1e6);
            }
        }
        // without the acknowledgement clock this model reaches 256 Mbit/s (and the real link 850)
        assertTrue(maxMbit <= 2.2 * 100,
                "start-up reached " + maxMbit + " Mbit/s on a 100 Mbit/s link");
    }

    @Test
    void theWindowHoldsAFewRoundTripsOfTheRate() {
        DelayRateControl control = new DelayRateControl(MSS, -1);
        double pps = DelayRateControl.INITIAL_BYTES_PER_SECOND / (double) MSS;
        assertEquals(pps * (3 * 100 + 10) / 1000, control.windowPackets(100), 1e-6);
        assertEquals(DelayRateControl.MIN_WINDOW_PACKETS, control.windowPackets(1), 1e-6);
    }

    @Test
    void aLossyPathGetsAWindowThatHoldsTwoRetransmissionTimeoutsMore() {
        DelayRateControl control = new DelayRateControl(MSS, -1);
        // a quarter of what was sent reported lost, before the rate control has learnt the path's mean
        control.onSample(0, 100, 400, 100, 0, 0);
        assertTrue(control.lossyPath());
        DelayRateControl clean = new DelayRateControl(MSS, -1);
        clean.onSample(0, 100, 400, 4, 0, 0);
        assertTrue(!clean.lossyPath());
        double pps = DelayRateControl.INITIAL_BYTES_PER_SECOND / (double) MSS;
        assertEquals(pps * DelayRateControl.LOSSY_EXTRA_MS / 1000, control.windowPackets(50) - clean.windowPackets(50), 1e-6);
    }
}
