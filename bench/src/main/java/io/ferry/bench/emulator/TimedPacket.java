package io.ferry.bench.emulator;

/** A packet waiting in an emulated link until its delivery time. */
record TimedPacket(long due, byte[] data) {
}
