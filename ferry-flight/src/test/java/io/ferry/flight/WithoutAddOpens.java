package io.ferry.flight;

import io.ferry.transport.Transports;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.memory.RootAllocator;

/** Run in a JVM without {@code --add-opens=java.base/java.nio}: prints what making a Flight server says. */
public final class WithoutAddOpens {
    public static void main(String[] args) {
        try (Transports ferry = Transports.create(); RootAllocator allocator = new RootAllocator()) {
            FerryFlight.serverBuilder(ferry, "tcp://127.0.0.1:0", allocator, new NoOpFlightProducer());
            System.out.println("made: no failure");
        } catch (IllegalStateException e) {
            System.out.println("refused: " + e.getMessage());
        }
    }
}
