package dev.knotless.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void parseRefusesOtherForms() {
        for (String bad : List.of("", "1.5h", "-5", "5 m", "1d", "m", "30m1h", "1h 30m", "0", "0s", "0h0m")) {
            assertThatThrownBy(() -> Durations.parse(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void parseTakesHoursMinutesSecondsAndPlainSeconds() {
        assertThat(Durations.parse("1h30m15s")).isEqualTo(Duration.ofSeconds(5415));
        assertThat(Durations.parse(" 90 ")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse("10m")).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void humanWritesWhatParseReads() {
        for (String text : List.of("90s", "10m", "1h")) {
            assertThat(Durations.human(Durations.parse(text))).isEqualTo(text);
        }
        assertThat(Durations.human(850)).isEqualTo("850ms");
        assertThat(Durations.human(185_000)).isEqualTo("3m05s");
    }
}
