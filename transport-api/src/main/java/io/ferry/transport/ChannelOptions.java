package io.ferry.transport;

import io.netty.channel.ChannelOption;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An immutable, typed set of channel options for one connection or listener.
 *
 * <p>It may hold Ferry's shared options ({@link FerryChannelOption}), Netty's standard options
 * ({@link ChannelOption#TCP_NODELAY}, {@link ChannelOption#WRITE_BUFFER_WATER_MARK}, ...) and a
 * transport's own options. The transport that receives it checks every key against what it can
 * honour and fails with {@link UnsupportedOptionException} otherwise.
 *
 * <pre>{@code
 * ChannelOptions options = ChannelOptions.builder()
 *         .set(FerryChannelOption.CONGESTION_CONTROL, "cubic")
 *         .set(ChannelOption.TCP_NODELAY, true)
 *         .build();
 * }</pre>
 */
public final class ChannelOptions {

    private static final ChannelOptions EMPTY = new ChannelOptions(Map.of());

    private final Map<ChannelOption<?>, Object> values;

    private ChannelOptions(Map<ChannelOption<?>, Object> values) {
        this.values = values;
    }

    /** No options: every transport's defaults. */
    public static ChannelOptions empty() {
        return EMPTY;
    }

    /** A builder for a new option set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from this set's values. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.values.putAll(values);
        return builder;
    }

    /** The value of an option, if set. */
    public <T> Optional<T> get(ChannelOption<T> option) {
        @SuppressWarnings("unchecked")
        T value = (T) values.get(option);
        return Optional.ofNullable(value);
    }

    /** Whether an option is set. */
    public boolean contains(ChannelOption<?> option) {
        return values.containsKey(option);
    }

    /** All options, in the order they were set. */
    public Map<ChannelOption<?>, Object> asMap() {
        return values;
    }

    /** Whether no option is set. */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    /**
     * Fails unless every option is one of {@code supported}.
     *
     * @throws UnsupportedOptionException naming the first unsupported option, the transport and what it supports
     */
    public void requireSupported(String transport, Collection<? extends ChannelOption<?>> supported) {
        for (ChannelOption<?> option : values.keySet()) {
            if (!supported.contains(option)) {
                String list = supported.stream().map(ChannelOption::name).sorted().collect(Collectors.joining(", "));
                throw new UnsupportedOptionException("transport '" + transport + "' cannot honour option "
                        + option.name() + "; it supports: " + list);
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelOptions && ((ChannelOptions) o).values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return values.entrySet().stream()
                .map(e -> e.getKey().name() + "=" + e.getValue())
                .collect(Collectors.joining(", ", "{", "}"));
    }

    /** Builds a {@link ChannelOptions}; each value is validated by its option as it is set. */
    public static final class Builder {
        private final Map<ChannelOption<?>, Object> values = new LinkedHashMap<>();

        private Builder() {
        }

        /** Sets an option, validating its value. A second call for the same option replaces the value. */
        public <T> Builder set(ChannelOption<T> option, T value) {
            Objects.requireNonNull(option, "option");
            if (value == null) {
                throw new IllegalArgumentException("option " + option.name() + " needs a value, got null");
            }
            option.validate(value);
            values.put(option, value);
            return this;
        }

        /** Sets every option of another set, replacing values already set here. */
        public Builder setAll(ChannelOptions other) {
            values.putAll(other.values);
            return this;
        }

        /** Removes an option. */
        public Builder remove(ChannelOption<?> option) {
            values.remove(option);
            return this;
        }

        public ChannelOptions build() {
            return values.isEmpty() ? EMPTY : new ChannelOptions(Collections.unmodifiableMap(new LinkedHashMap<>(values)));
        }
    }
}
