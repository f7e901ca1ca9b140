package dev.knotless.executor.node.host;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InheritedSignalsTest {

    @Test
    void theMaskNamesTheSignalsByNumber() {
        assertThat(InheritedSignals.ignored("Name:\tjava\nSigBlk:\t0000000000000000\nSigIgn:\t0000000180000002\n"))
                .containsExactly(2, 32, 33);
        assertThat(InheritedSignals.ignored("SigIgn:\t0000000000000000\n")).isEmpty();
        assertThat(InheritedSignals.ignored("Name:\tx\n")).isEmpty();
    }
}
