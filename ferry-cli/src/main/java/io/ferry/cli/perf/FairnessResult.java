package io.ferry.cli.perf;

/**
 * The scavenger's manners on this path: a kernel TCP flow alone, Ferry's LEDBAT ({@code utp}) alone, then
 * each joining the other (RFC 6817 §1: LEDBAT should use an idle path fully and yield to TCP quickly).
 *
 * @param tcpCc           the TCP flow's congestion control ({@code default} for the host's)
 * @param tcpAloneMbps    TCP alone, from its second second on
 * @param ledbatAloneMbps LEDBAT alone, the same window
 * @param idleUse         LEDBAT alone against TCP alone: how much of an idle path the scavenger uses
 * @param addedDelayMillis the round trip under LEDBAT alone less the idle one: the queue it keeps
 * @param tcpJoins        TCP joining established LEDBAT
 * @param ledbatJoins     LEDBAT joining established TCP
 */
public record FairnessResult(String tcpCc, double tcpAloneMbps, double ledbatAloneMbps, double idleUse, double addedDelayMillis,
                      Join tcpJoins, Join ledbatJoins) {

    /**
     * One run where a flow joins another.
     *
     * @param joinSeconds   when the second flow joined, seconds after the first began
     * @param ledbatShare   LEDBAT's share of what both delivered from 2 s after the join to the end
     * @param tcpMbps       TCP's rate over the same window
     * @param harm          TCP's rate beside LEDBAT against TCP alone (1.0: no harm)
     * @param stepSeconds   the width of each sample of the series
     * @param ledbatMbps    LEDBAT's rate per step from the first flow's start
     * @param tcpSeriesMbps TCP's rate per step
     */
    public record Join(double joinSeconds, double ledbatShare, double tcpMbps, double harm, double stepSeconds,
                double[] ledbatMbps, double[] tcpSeriesMbps) {
    }
}
