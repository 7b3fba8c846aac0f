package io.ferry.flight;

import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A Flight producer that keeps what DoPut sends under the descriptor's path and streams it back on DoGet of that name. */
final class RecordStore extends NoOpFlightProducer implements AutoCloseable {

    private record Table(Schema schema, List<ArrowRecordBatch> batches) {
    }

    private final BufferAllocator allocator;
    private final Map<String, Table> tables = new ConcurrentHashMap<>();

    RecordStore(BufferAllocator allocator) {
        this.allocator = allocator;
    }

    @Override
    public Runnable acceptPut(CallContext context, FlightStream stream, StreamListener<PutResult> ack) {
        return () -> {
            List<ArrowRecordBatch> batches = new ArrayList<>();
            VectorSchemaRoot root = stream.getRoot();
            VectorUnloader unloader = new VectorUnloader(root);
            while (stream.next()) {
                batches.add(unloader.getRecordBatch());
            }
            FlightDescriptor descriptor = stream.getDescriptor();
            Table old = tables.put(String.join("/", descriptor.getPath()), new Table(root.getSchema(), batches));
            if (old != null) {
                old.batches().forEach(ArrowRecordBatch::close);
            }
            ack.onCompleted();
        };
    }

    @Override
    public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
        Table table = tables.get(new String(ticket.getBytes(), StandardCharsets.UTF_8));
        if (table == null) {
            listener.error(org.apache.arrow.flight.CallStatus.NOT_FOUND.withDescription("no table").toRuntimeException());
            return;
        }
        try (VectorSchemaRoot root = VectorSchemaRoot.create(table.schema(), allocator)) {
            VectorLoader loader = new VectorLoader(root);
            listener.start(root);
            for (ArrowRecordBatch batch : table.batches()) {
                loader.load(batch);
                listener.putNext();
            }
            listener.completed();
        }
    }

    @Override
    public void close() {
        tables.values().forEach(t -> t.batches().forEach(ArrowRecordBatch::close));
        tables.clear();
    }
}
