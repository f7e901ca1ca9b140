package dev.knotless.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpaceReserveTest {

    @TempDir Path state;

    @Test
    void aReserveHoldsItsSpaceUntilSpentAndKeepsOnlyItsMarkThen() throws Exception {
        SpaceReserve reserve = new CheckStore(state).reserve("run-1");
        Path file = state.resolve("checks/.run-1.reserve");
        reserve.take();
        assertThat(Files.size(file)).isEqualTo(SpaceReserve.BYTES);
        assertThat(reserve.markedFull()).isFalse();

        reserve.spend();
        assertThat(reserve.markedFull()).isTrue();
        assertThat(Files.size(file)).isLessThan(64);
        reserve.take();
        assertThat(reserve.markedFull()).as("a resumed run keeps the mark").isTrue();

        reserve.release();
        assertThat(file).doesNotExist();
        assertThat(new CheckStore(state).list()).as("a reserve is no check").isEmpty();
    }

    @Test
    void aMarkIsWrittenInPlaceAndTheSizeStays() throws Exception {
        SpaceReserve reserve = new CheckStore(state).reserve("run-2");
        reserve.take();
        reserve.markFull();
        assertThat(reserve.markedFull()).isTrue();
        assertThat(Files.size(state.resolve("checks/.run-2.reserve"))).isEqualTo(SpaceReserve.BYTES);
    }
}
