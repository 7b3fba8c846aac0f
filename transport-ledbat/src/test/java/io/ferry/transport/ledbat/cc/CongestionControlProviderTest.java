package io.ferry.transport.ledbat.cc;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.ledbat.core.UtpConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CongestionControlProviderTest {
    private final CongestionParameters params = new CongestionParameters(1000, 100_000);

    @Test
    void aProviderListedInMetaInfServicesIsSelectableByItsName() {
        assertTrue(CongestionControls.names().contains(PluggedInWindow.NAME), CongestionControls.names().toString());
        assertEquals(7000, CongestionControls.create(PluggedInWindow.NAME, params).cwndBytes());
        UtpConfig config = UtpConfig.builder().congestionControl(PluggedInWindow.NAME).build();
        assertEquals(PluggedInWindow.NAME, config.congestionControl());
    }

    @Test
    void aProviderRepeatingABuiltInNameFailsNamingBoth() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CongestionControls.addProviders(List.of(provider("cubic"))));
        assertTrue(e.getMessage().contains("'cubic'") && e.getMessage().contains("built in")
                && e.getMessage().contains(NamedProvider.class.getName()), e.getMessage());
    }

    @Test
    void twoProvidersWithOneNameFailNamingBothAndAddNeither() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CongestionControls.addProviders(List.of(provider("test-twice"), new OtherNamedProvider("test-twice"))));
        assertTrue(e.getMessage().contains("'test-twice'") && e.getMessage().contains(NamedProvider.class.getName())
                && e.getMessage().contains(OtherNamedProvider.class.getName()), e.getMessage());
        assertTrue(!CongestionControls.isRegistered("test-twice"));
    }

    @Test
    void registeringTheNameOfAProviderFailsNamingTheProvider() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CongestionControls.register(PluggedInWindow.NAME, p -> new FixedWindow(p, 1)));
        assertTrue(e.getMessage().contains(PluggedInWindow.class.getName()), e.getMessage());
    }

    @Test
    void aProviderWithAnInvalidNameIsRejectedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CongestionControls.addProviders(List.of(provider("has space"))));
        assertTrue(e.getMessage().contains(NamedProvider.class.getName()), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"newreno", "cubic", "highspeed", "vegas", "westwood+", "bbr", "ledbat++"})
    void theChannelOptionAndTheUtpConfigAcceptEveryBuiltInName(String name) {
        ChannelOptions options = ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, name).build();
        assertEquals(name, options.get(FerryChannelOption.CONGESTION_CONTROL).orElseThrow());
        assertEquals(name, UtpConfig.builder().congestionControl(name).build().congestionControl());
        assertEquals(name, CongestionControls.create(name, params).name());
    }

    private static CongestionControlProvider provider(String name) {
        return new NamedProvider(name);
    }

    private record NamedProvider(String name) implements CongestionControlProvider {
        @Override
        public CongestionControl create(CongestionParameters parameters) {
            return new FixedWindow(parameters, 1);
        }
    }

    private record OtherNamedProvider(String name) implements CongestionControlProvider {
        @Override
        public CongestionControl create(CongestionParameters parameters) {
            return new FixedWindow(parameters, 2);
        }
    }
}
