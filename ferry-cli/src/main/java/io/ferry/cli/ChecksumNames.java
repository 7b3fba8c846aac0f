package io.ferry.cli;

import io.ferry.cli.transfer.Checksum;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** What shell completion offers for {@code --checksum}: the names as typed, {@code crc32c} and {@code sha256}, not the enum's. */
final class ChecksumNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
        List<String> names = new ArrayList<>();
        for (Checksum c : Checksum.values()) {
            names.add(c.label());
        }
        return names.iterator();
    }
}
