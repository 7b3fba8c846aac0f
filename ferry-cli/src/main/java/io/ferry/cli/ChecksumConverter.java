package io.ferry.cli;

import io.ferry.cli.transfer.Checksum;
import picocli.CommandLine;

/** Reads {@code --checksum NAME}; an unknown name is an error that lists the known ones. */
final class ChecksumConverter implements CommandLine.ITypeConverter<Checksum> {
    @Override
    public Checksum convert(String value) {
        try {
            return Checksum.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
