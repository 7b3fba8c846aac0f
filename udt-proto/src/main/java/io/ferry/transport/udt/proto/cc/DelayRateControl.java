package io.ferry.transport.udt.proto.cc;

/**
 * Ferry's rate control for UDT ({@code CONGESTION_CONTROL=ferry}): a sending rate steered by the queue
 * it builds, not by the losses it sees.
 *
 * <p>UDT4's own control (DAIMD, {@code udt}) lowers the sending rate on every loss report, so random
 * loss that no queue caused starves it: at 25 % loss each way it moves a few kilobytes a second. This
 * control reads what UDT already measures (its smoothed RTT, packets sent, retransmitted and reported
 * lost, packets in flight) once per round of {@code max(min RTT, 40 ms)} and sets the rate UDT paces at:
 * <ul>
 *   <li><b>the queue decides</b>: the queuing delay is the smoothed RTT less the smallest RTT of the
 *       last ten minutes, extrapolated one round ahead (UDT smooths its RTT over about 80 ms). The
 *       target is a quarter of the minimum RTT, between 5 and 30 ms;</li>
 *   <li><b>start-up</b> waits for UDT's RTT to settle at its highest after its 100 ms guess (at least 40
 *       acknowledgements, at most half a second after the first of a run of them; a second at most when
 *       holes behind a deep queue keep the acknowledgements sparse), growing the rate on what the
 *       receiver reports arriving, then multiplies the rate
 *       by 1.5 each round until the first queue appears or the buffer
 *       overflows, then drops it to 85 % of the best rate acknowledged in the last three rounds (what
 *       the bottleneck passed), but not below 40 % (50 % after an overflow), and holds that rate while
 *       the queue the growth built drains;</li>
 *   <li><b>after start-up</b> FAST TCP's update acts on the rate: each round it moves a quarter of the
 *       way towards {@code rate × (minRTT + target) / (minRTT + queue)} plus ten packets per round
 *       trip, so it grows while the queue is below the target, falls in proportion when it is above,
 *       and flows that share a queue converge to equal rates;</li>
 *   <li><b>random loss does not cut the rate</b>; loss <em>above</em> the path's usual loss does. The
 *       fraction of packets reported lost each round (against the packets sent a round trip before) is
 *       compared with its mean (the average of the first four rounds, then following a fall within a few
 *       rounds and a rise over some 16):
 *       more than 1.5 × the mean + 2 % two rounds in a row, or more than
 *       twice the mean + 10 % once (at least 50 packets sent; on a lossy path each plus the round's
 *       binomial noise, and the mean never below the first 200 packets' loss), is a buffer overflowing that the queue
 *       signal could not show (a buffer shallower than the target), and cuts the rate to 70 %; growth then
 *       stays additive near the rate that overflowed;</li>
 *   <li>a rate that the sender does not reach (the application writes less, or the CPU is the limit)
 *       does not grow further.</li>
 * </ul>
 * The result yields to a flow that fills buffers (loss-based TCP behind a deep queue takes most of the
 * link, as with Vegas), and is not more aggressive than that behind a shallow one.
 *
 * <p>Not thread-safe: one channel's event loop feeds it.
 */
final class DelayRateControl {

    /** The rate before the first measurement: 10 Mbit/s. */
    static final long INITIAL_BYTES_PER_SECOND = 1_250_000;
    /** Packets whose loss tells a lossy path from a start-up's overflow, see {@link #lossyFromTheStart}. */
    static final int EARLY_PACKETS = 200;
    /** Never slower than this. */
    static final long MIN_BYTES_PER_SECOND = 32 * 1024;
    static final double MIN_ROUND_MS = 40;
    static final double MIN_TARGET_MS = 5;
    static final double MAX_TARGET_MS = 30;
    static final double STARTUP_EXIT_FACTOR = 0.4;
    static final double LOSS_CUT_FACTOR = 0.7;
    static final int MIN_PACKETS_FOR_LOSS = 50;
    static final int LOSS_CALIBRATION_ROUNDS = 4;
    /** Rounds whose acknowledged rates size the rate a start-up ends at (the largest of them). */
    static final int EXIT_RATE_ROUNDS = 3;
    /**
     * Rounds after a start-up ends through which its queue may drain at the rate it ended at; losses
     * reported in the first two are the start-up's own overflow, reported a round trip late.
     */
    static final int START_UP_DRAIN_ROUNDS = 8;
    static final double GAMMA = 0.25;
    static final double STARTUP_GAIN = 1.5;
    /** The warm-up's acknowledgement clock: the window its acknowledged rate is measured over. */
    static final long WARM_UP_ACK_WINDOW_NANOS = 50_000_000L;
    /** The share of the rate the acknowledged rate must reach before the warm-up grows it. */
    static final double WARM_UP_ACKED_SHARE = 0.8;
    /**
     * Start-up's rate stays within this multiple of the best acknowledged rate of the last rounds: an
     * acknowledgement clock. Acknowledgements report the rate of a round trip ago, 1/1.5 of today's
     * when the round is the RTT, so 2.5 leaves growth at 1.5 per round until a queue lengthens the round
     * trip or the bottleneck stops passing more.
     */
    static final double STARTUP_DELIVERY_CAP = 2.5;
    static final double ADDITIVE_PACKETS_PER_RTT = 10;
    /** Round trips of the current rate the window holds, see {@link #windowPackets}. */
    static final double WINDOW_ROUND_TRIPS = 3;
    /** UDT acknowledges every 10 ms: the window holds that much more. */
    static final double ACK_INTERVAL_MS = 10;
    static final double MIN_WINDOW_PACKETS = 64;
    /**
     * From this loss on, lost repairs are common and UDT's cumulative ACK waits for its EXP timer most of
     * the time: start-up's acknowledgement clock does not apply there, and the window holds two EXP
     * timeouts more (with the clock, 2.8 MB through 25 % loss and 50 ms took 9-10 s instead of 3.0).
     */
    static final double LOSSY_PATH = 0.05;
    /**
     * Rounds after an overflow that came with a queue under half the target (a shallow buffer) in which
     * the rate grows as CUBIC's Reno-friendly window does ({@link #RENO_ALPHA}) and smaller
     * losses count as overflow ({@link #overflowOfAShallowBuffer}), unless the queue shows above the
     * target: FAST's growth towards a target such a buffer cannot hold had won back a 30 % cut in three
     * rounds, and overflowed it again.
     */
    static final int RENO_ROUNDS = 250;
    /**
     * Packets per round trip, each round trip, that the rate grows by behind a shallow buffer: the additive
     * increase that matches Reno's share for a cut to {@link #LOSS_CUT_FACTOR}, 3(1 − β)/(1 + β) with
     * β = 0.7 (RFC 9438 §4.3, CUBIC's Reno-friendly region).
     */
    static final double RENO_ALPHA = 3 * (1 - LOSS_CUT_FACTOR) / (1 + LOSS_CUT_FACTOR);
    /** The losses a round behind a shallow buffer must report, and the fraction above twice its mean, to be overflow. */
    static final int SHALLOW_MIN_LOST = 2;
    static final double SHALLOW_MARGIN = 0.002;
    /** What a lossy path adds to the window: two of UDT's EXP timeouts (at least 300 ms each) of the rate. */
    static final double LOSSY_EXTRA_MS = 600;

    private final int packetBytes;
    private double maxPps;
    private double minPps;

    private double pps;
    private boolean startup = true;
    private boolean measuring;
    private final RttWarmUp warmUp = new RttWarmUp();
    private long lastWarmUpGrowth = Long.MIN_VALUE / 2;
    private double peerArrivalPps;
    /** The share of the first {@link #EARLY_PACKETS} packets reported lost, NaN until they are acknowledged. */
    private double earlyLoss = Double.NaN;
    private long sentSoFar;
    private long lostSoFar;
    private final double[] recentAckedPps = new double[EXIT_RATE_ROUNDS];
    private int recentAckedNext;

    private double minRttMs = Double.NaN;
    static final int RTT_BUCKETS = 10;
    static final long BUCKET_NANOS = 60_000_000_000L;
    private final double[] bucketMin = filled(RTT_BUCKETS, Double.POSITIVE_INFINITY);
    private int bucket;
    private long bucketStart;

    private long roundStart;
    private long roundSent;
    private long roundLost;
    private long roundAcked;
    private double lossMean = Double.NaN;
    private int holdRounds;
    /** Rounds left in which the queue the start-up built may drain without FAST's decrease (see {@link #endRound}). */
    private int drainingStartUpRounds;
    private double lossCutPps = Double.POSITIVE_INFINITY;
    private int renoRounds;
    private double lastQueueMs;
    private int lossStrikes;
    private int lossRounds;

    /** Readings kept to match reported losses with the packets sent a round trip before. */
    static final int HISTORY = 256;
    private final long[] historyTime = new long[HISTORY];
    private final long[] historySent = new long[HISTORY];
    private final long[] historyAcked = new long[HISTORY];
    private int historyNext;
    private long historyCount;

    private long rounds;
    private long queueCuts;
    private long lossCuts;

    /**
     * @param packetBytes    UDT's MSS: the bytes UDT counts per packet when it paces
     * @param maxBytesPerSec the user's ceiling, or a value ≤ 0 for none
     */
    DelayRateControl(int packetBytes, long maxBytesPerSec) {
        this.packetBytes = packetBytes;
        this.pps = (double) INITIAL_BYTES_PER_SECOND / packetBytes;
        ceiling(maxBytesPerSec);
    }

    /** Sets the user's ceiling, bytes per second, or a value ≤ 0 for none. */
    void ceiling(long maxBytesPerSec) {
        this.maxPps = maxBytesPerSec > 0 ? (double) maxBytesPerSec / packetBytes : Double.MAX_VALUE;
        this.minPps = Math.min(this.maxPps, (double) MIN_BYTES_PER_SECOND / packetBytes);
        this.pps = Math.min(this.maxPps, this.pps);
    }

    /** The rate to pace at, in bytes per second of UDT packets (what {@code UDT_MAXBW} takes). */
    long bytesPerSecond() {
        return Math.max(1, Math.round(pps * packetBytes));
    }

    /**
     * Feeds one reading of UDT's monitor.
     *
     * @param now          {@link System#nanoTime()}
     * @param rttMs        UDT's smoothed RTT
     * @param sentTotal    data packets sent, retransmissions included
     * @param lostTotal    packets the peer reported lost
     * @param ackedTotal   packets acknowledged (sent − retransmitted − in flight)
     * @param acksReceived acknowledgement packets received so far (UDT's RTT moves once per acknowledgement)
     * @return the rate to pace at now, bytes per second
     */
    long onSample(long now, double rttMs, long sentTotal, long lostTotal, long ackedTotal, long acksReceived) {
        remember(now, sentTotal, ackedTotal);
        sentSoFar = sentTotal;
        lostSoFar = lostTotal;
        if (Double.isNaN(earlyLoss) && ackedTotal >= EARLY_PACKETS) {
            earlyLoss = (double) lostTotal / Math.max(1, sentTotal);
            floorLossMean();
        }
        if (!measuring) {
            // UDT's RTT is a 100 ms guess until the first acknowledgement, and then converges 1/8 per
            // acknowledgement (every 10 ms) on both ends: on a path longer than 100 ms the early values
            // are too low and would pass for the base RTT for ten minutes. Below the guess it falls
            // towards the truth, which the minimum follows; at or above it, hold the first rate a while.
            if (ackedTotal <= 0 || !(rttMs > 0)) {
                return bytesPerSecond();
            }
            if (rttMs >= RttWarmUp.UDT_INITIAL_RTT_MS - 1 && !warmUp.converged(now, rttMs, acksReceived)) {
                growOnAcknowledgements(now, ackedTotal);
                return bytesPerSecond();
            }
            measuring = true;
            bucketStart = now;
            startRound(now, sentTotal, lostTotal, ackedTotal);
        }
        if (rttMs > 0) {
            noteRtt(now, rttMs);
        }
        double roundMs = Math.max(minRttMs, MIN_ROUND_MS);
        double elapsedMs = (now - roundStart) / 1e6;
        if (elapsedMs < roundMs) {
            return bytesPerSecond();
        }
        // losses are reported a round trip after the packets were sent: compare them with what was sent then
        long lag = (long) (Math.max(rttMs, minRttMs) * 1e6);
        long sentThen = sentAt(now - lag) - sentAt(roundStart - lag);
        endRound(now, elapsedMs, rttMs, sentTotal - roundSent, sentThen, lostTotal - roundLost, ackedTotal - roundAcked);
        startRound(now, sentTotal, lostTotal, ackedTotal);
        return bytesPerSecond();
    }

    /**
     * While the warm-up waits for UDT's RTT, the rate grows by {@link #STARTUP_GAIN} each time the
     * acknowledged rate over the last {@link #WARM_UP_ACK_WINDOW_NANOS} reached {@link #WARM_UP_ACKED_SHARE}
     * of it: the path carries what is sent, so send more. No RTT is needed, the acknowledgements clock it
     * (once per round trip and a window), and growth stops at about 1.5 times what the bottleneck passes
     * or where loss takes a quarter. Before this the warm-up sent 10 Mbit/s for most of a second.
     */
    private void growOnAcknowledgements(long now, long ackedTotal) {
        if (now - lastWarmUpGrowth < WARM_UP_ACK_WINDOW_NANOS || historyCount < 2) {
            return;
        }
        long since = now - WARM_UP_ACK_WINDOW_NANOS;
        double ackedPps = delivered((ackedTotal - at(historyAcked, since)) * 1e9 / WARM_UP_ACK_WINDOW_NANOS);
        if (ackedPps >= WARM_UP_ACKED_SHARE * pps) {
            pps = Math.min(maxPps, pps * STARTUP_GAIN);
            lastWarmUpGrowth = now;
        }
    }

    /**
     * What the path delivered, from an acknowledged rate: capped by the receiver's arrival rate once the
     * path lost a packet, for the cumulative ACK that follows a repaired hole acknowledges in one window a
     * burst the path passed over several. Not before: on a clean long path the receiver's median (of gaps
     * read in batches) can run below the acknowledged rate, and capping by it there slowed a 200 Mbit/s,
     * 150 ms start-up by 8 %.
     */
    private double delivered(double ackedPps) {
        return peerArrivalPps > 0 && lostSoFar > 0 ? Math.min(ackedPps, peerArrivalPps) : ackedPps;
    }

    /**
     * The packets in flight just after the latest acknowledgement: a pause in the acknowledgements
     * that follows an idle sender restarts the warm-up, one with packets outstanding does not.
     */
    void inFlight(long packets) {
        warmUp.inFlight(packets);
    }

    /**
     * The receiver's packet arrival rate, as its full ACKs carry it (draft-gg-udt-03 section 6.2, the
     * median of its recent arrival intervals): what the path passes, without the bursts of a cumulative
     * acknowledgement. 0 when unknown.
     */
    void peerArrivalRate(double packetsPerSecond) {
        this.peerArrivalPps = packetsPerSecond;
    }

    /** Packets sent by {@code time}, from the readings of the last {@link #HISTORY} samples. */
    private long sentAt(long time) {
        return at(historySent, time);
    }

    private long at(long[] history, long time) {
        long best = history[(historyNext - 1 + HISTORY) % HISTORY];
        for (int i = 1; i <= Math.min(historyCount, HISTORY); i++) {
            int k = (historyNext - i + HISTORY) % HISTORY;
            best = history[k];
            if (historyTime[k] <= time) {
                break;
            }
        }
        return best;
    }

    private void remember(long now, long sentTotal, long ackedTotal) {
        historyTime[historyNext] = now;
        historySent[historyNext] = sentTotal;
        historyAcked[historyNext] = ackedTotal;
        historyNext = (historyNext + 1) % HISTORY;
        historyCount++;
    }

    private void startRound(long now, long sentTotal, long lostTotal, long ackedTotal) {
        roundAcked = ackedTotal;
        roundStart = now;
        roundSent = sentTotal;
        roundLost = lostTotal;
    }

    /**
     * The base RTT is the smallest RTT of the last ten minutes, kept as ten one-minute minima as
     * LEDBAT keeps its base delay: long enough that a queue this control holds for a while does not
     * become the base, short enough that a route that got longer is learnt.
     */
    private void noteRtt(long now, double rttMs) {
        if (now - bucketStart >= BUCKET_NANOS) {
            bucket = (bucket + 1) % RTT_BUCKETS;
            bucketMin[bucket] = Double.POSITIVE_INFINITY;
            bucketStart = now;
        }
        bucketMin[bucket] = Math.min(bucketMin[bucket], rttMs);
        double min = Double.POSITIVE_INFINITY;
        for (double m : bucketMin) {
            min = Math.min(min, m);
        }
        minRttMs = min;
    }

    private void endRound(long now, double elapsedMs, double rttMs, long sent, long sentThen, long lost, long acked) {
        rounds++;
        double ackedPps = delivered(acked * 1000.0 / elapsedMs);
        recentAckedPps[recentAckedNext++ % EXIT_RATE_ROUNDS] = ackedPps;
        double measured = Math.max(0, rttMs - minRttMs);
        double target = Math.min(MAX_TARGET_MS, Math.max(MIN_TARGET_MS, minRttMs / 4));
        boolean draining = lastQueueMs - measured > target / 2;
        if (measured > target) {
            renoRounds = 0; // the buffer holds a queue after all
        }
        double sentPps = sent * 1000.0 / elapsedMs;
        boolean lossSignal = false;
        if (sentThen >= MIN_PACKETS_FOR_LOSS) {
            double fraction = Math.min(1, Math.max(0, (double) lost / sentThen));
            if (lossRounds < LOSS_CALIBRATION_ROUNDS) {
                // the path's loss is learnt over the first rounds: losses are reported late, and one
                // early round can show none of them
                lossRounds++;
                lossMean = Double.isNaN(lossMean) ? fraction : lossMean + (fraction - lossMean) / lossRounds;
                floorLossMean();
            } else if (draining || drainingStartUpRounds > START_UP_DRAIN_ROUNDS - 2) {
                // a queue that empties delivers, and so reports, the losses of several rounds at once;
                // and the start-up's overflow is reported a round trip after the start-up ended on it
                lossStrikes = 0;
            } else if (fraction > lossMean * 1.5 + 0.02 + samplingNoise(sentThen)) {
                // one round above is noise or a mismatch of what was sent when; two, or a flood, is overflow
                lossStrikes++;
                lossSignal = lossStrikes >= 2 || fraction > lossMean * 2 + 0.1 + samplingNoise(sentThen);
            } else if (overflowOfAShallowBuffer(fraction, lost, sentThen)) {
                lossStrikes = 0;
                lossSignal = true;
            } else {
                // the path's own loss: quick to fall, slower to rise, so that overflow that persists below
                // the threshold does not become the norm at once
                lossStrikes = 0;
                lossMean += (fraction - lossMean) / (fraction < lossMean ? 4 : 16);
                floorLossMean();
            }
        }
        // UDT smooths its RTT over about 80 ms, so the queue seen lags the queue there is: extrapolate its trend
        double queue = Math.max(0, measured + (measured - lastQueueMs));
        double previousMeasured = lastQueueMs;
        lastQueueMs = measured;
        if (holdRounds > 0) {
            // the last cut has not reached the RTT UDT reports yet
            holdRounds--;
            return;
        }
        // what the bottleneck passed lately: the best of the last rounds, as the round that overflowed
        // the buffer acknowledges less (its losses hold UDT's cumulative acknowledgement back)
        double passed = 0;
        for (double r : recentAckedPps) {
            passed = Math.max(passed, r);
        }
        if (lossSignal) {
            lossCutPps = pps;
            // a start-up that overflowed the buffer before its queue showed (UDT's RTT lags): back to
            // what the bottleneck passed less 15 %, which drains the queue, rather than to half of the
            // overshoot (which had left a 200 Mbit/s link at 120 for a second and a half)
            pps = startup ? Math.max(pps * 0.5, Math.min(pps, passed * 0.85)) : pps * LOSS_CUT_FACTOR;
            boolean startUpEnding = startup;
            if (!startup && measured <= target / 2) {
                // an overflow with no queue to show for it: the buffer is shallower than the target
                renoRounds = RENO_ROUNDS;
            }
            startup = false;
            lossCuts++;
            lossStrikes = 0;
            holdRounds = 1;
            drainingStartUpRounds = startUpEnding ? START_UP_DRAIN_ROUNDS : 0;
        } else if (startup) {
            if (queue > target) {
                startup = false;
                // the queue start-up built drains at what the bottleneck passed less 15 %, but no
                // deeper than 40 % of the rate that built it
                pps = Math.max(pps * STARTUP_EXIT_FACTOR, Math.min(pps, passed * 0.85));
                holdRounds = 1;
                drainingStartUpRounds = START_UP_DRAIN_ROUNDS;
            } else if (sentPps >= 0.5 * pps) {
                // grow, but never past a multiple of what the path delivered lately: the queue signal
                // reaches the RTT a queuing delay (and UDT's smoothing) late, and growth by round alone
                // had sent 850 Mbit/s into a 100 Mbit/s link behind a 150 ms queue before it showed
                // (on a lossy path the acknowledged rate stalls behind lost repairs: no clock there)
                boolean clocked = !lossyFromTheStart();
                pps = clocked ? Math.max(pps, Math.min(pps * STARTUP_GAIN, passed * STARTUP_DELIVERY_CAP)) : pps * STARTUP_GAIN;
            }
        } else if (drainingStartUpRounds > 0 && measured > target && measured < previousMeasured - 0.5) {
            // the queue the start-up built drains at 85 % of what the bottleneck passed while the link
            // stays busy; FAST's decrease on top of that, round after round of the same queue, had
            // left a 200 Mbit/s link at 60 % once the queue was gone. Only while it visibly falls, and
            // for a few rounds: a rate still above the bottleneck's gets FAST's decrease
            drainingStartUpRounds--;
        } else {
            drainingStartUpRounds = 0;
            // FAST TCP's update, on a rate: towards the rate that holds the queue at the target, plus a
            // constant that makes flows sharing a queue converge to equal rates
            double additive = ADDITIVE_PACKETS_PER_RTT * 1000 / Math.max(minRttMs, 10);
            double ratio = Math.min(2, (minRttMs + target) / (minRttMs + queue));
            double next = (1 - GAMMA) * pps + GAMMA * (pps * ratio + additive);
            if (next > pps) {
                if (sentPps < 0.5 * pps) {
                    next = pps; // a rate the sender does not reach says nothing about the path
                } else if (renoRounds > 0 && queue <= target) {
                    // a shallow buffer that overflows: the growth of CUBIC's Reno-friendly region
                    next = Math.min(next, pps + RENO_ALPHA * elapsedMs * 1000 / (Math.max(minRttMs, 1) * Math.max(minRttMs, 1)));
                } else if (pps >= 0.85 * lossCutPps) {
                    next = Math.min(next, pps + GAMMA * additive); // near the last overflow: probe as Reno does
                }
            } else if (next < pps) {
                queueCuts++;
            }
            pps = next;
        }
        if (!lossSignal) {
            lossCutPps *= 1.02; // forget an old overflow
            renoRounds = Math.max(0, renoRounds - 1);
        }
        pps = Math.min(maxPps, Math.max(minPps, pps));
    }

    /**
     * Behind a buffer shallower than the target (an overflow came with no queue to show for it, see
     * {@link #RENO_ROUNDS}) a round that loses more than twice the path's usual loss is that buffer
     * overflowing again, read as TCP reads it: a loss-based flow beside this one learns of the shared queue
     * only by its losses, and tolerating them up to the lossy-path rule left one CUBIC flow 4.5 Mbit/s of 100
     * behind a 2 ms buffer (study 3c, 2026-11-29). Random loss alone never enters this mode: its
     * rounds stay under that rule's threshold.
     */
    private boolean overflowOfAShallowBuffer(double fraction, long lost, long sent) {
        return renoRounds > 0 && lost >= SHALLOW_MIN_LOST && fraction > lossMean * 2 + SHALLOW_MARGIN + samplingNoise(sent);
    }

    /**
     * On a {@link #lossyPath() lossy path}, two standard deviations of the fraction lost in a round of
     * {@code sent} packets at the learnt mean (binomial): a round's fraction above the mean by less is
     * chance. Through 25 % loss a round of 50 packets reads anywhere from 13 to 37 %, and without it every
     * other round there passed for overflow and cut the rate. Elsewhere nothing: behind a 2 ms buffer a
     * round's 1-2 % is the overflow that CUBIC beside it must see answered (with the term there CUBIC kept
     * 23.6 Mbit/s of 100 once), and a 1 % path is read as before.
     */
    private double samplingNoise(long sent) {
        return lossyPath() ? 2 * Math.sqrt(lossMean * (1 - lossMean) / Math.max(1, sent)) : 0;
    }

    /**
     * The learnt loss never falls below the share of the first {@link #EARLY_PACKETS} packets lost, sent
     * before a start-up could outgrow any link: the path's own loss. The rounds alone can miss it where
     * lost repairs stall the cumulative ACK and the sender goes in bursts: their reports then fall in
     * other rounds than their packets, and through 25 % loss each way a learnt 2-3 % read every round
     * as overflow, cut the rate round after round and left 1 transfer in 6 at a tenth of the others'
     * rate (14 MB in 44-62 s instead of 5-10).
     */
    private void floorLossMean() {
        if (!Double.isNaN(lossMean) && earlyLoss > lossMean) {
            lossMean = earlyLoss;
        }
    }

    private static double[] filled(int n, double value) {
        double[] a = new double[n];
        java.util.Arrays.fill(a, value);
        return a;
    }

    /**
     * The packets in flight to allow: {@link #WINDOW_ROUND_TRIPS} round trips of the current rate plus an
     * acknowledgement interval, and on a {@link #lossyPath() lossy path} {@link #LOSSY_EXTRA_MS} more. A
     * rate control needs no window, but UDT4 (4.11) repeats no NAK: when a
     * retransmission is lost too, the cumulative ACK stays at that hole, and the sender's retransmission
     * timer, reset by every NAK the newer losses bring, fires only once the sender stops sending. With
     * the flow window alone (25,600 packets) that took 15-20 s at 1 % loss; with this bound the sender
     * stops a few round trips after the hole and the repair timer ({@link RepairTimeout}) resends it. Three round
     * trips cover a round trip of holes awaiting their repair, so the window does not limit a flow whose
     * repairs arrive.
     *
     * @param rttMs UDT's smoothed RTT now
     * @return packets
     */
    double windowPackets(double rttMs) {
        double rtt = Double.isNaN(minRttMs) ? rttMs : Math.max(rttMs, minRttMs);
        double lossyMs = lossyPath() ? LOSSY_EXTRA_MS : 0;
        return Math.max(MIN_WINDOW_PACKETS, pps * (WINDOW_ROUND_TRIPS * rtt + ACK_INTERVAL_MS + lossyMs) / 1000);
    }

    /**
     * Whether the path was {@link #lossyPath() lossy} and already lost {@link #LOSSY_PATH} of the first
     * {@link #EARLY_PACKETS} packets, sent before the start-up could outgrow any link. The losses of a
     * start-up that overflowed a deep queue count in the learnt mean too, and had lifted start-up's
     * acknowledgement clock there: 6,300 packets/s into a 20 Mbit/s link.
     */
    private boolean lossyFromTheStart() {
        return lossyPath() && !(earlyLoss < LOSSY_PATH);
    }

    /** Whether the path loses {@link #LOSSY_PATH} or more: its learnt mean, or until then all so far. */
    boolean lossyPath() {
        double loss = Double.isNaN(lossMean) ? (sentSoFar >= MIN_PACKETS_FOR_LOSS ? (double) lostSoFar / sentSoFar : 0) : lossMean;
        return loss >= LOSSY_PATH;
    }

    boolean inStartup() {
        return startup;
    }

    double minRttMillis() {
        return minRttMs;
    }

    long rounds() {
        return rounds;
    }

    long queueCuts() {
        return queueCuts;
    }

    long lossCuts() {
        return lossCuts;
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "ferry rate control: %.0f packets/s (%s), min RTT %.1f ms, loss mean %.3f, "
                + "%d rounds, %d queue cuts, %d loss cuts", pps, startup ? "start-up" : "steady", minRttMs, lossMean,
                rounds, queueCuts, lossCuts);
    }
}
