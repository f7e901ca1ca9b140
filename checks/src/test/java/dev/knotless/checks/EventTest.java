package dev.knotless.checks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class EventTest {

    @Test
    void wireNamesAreTheLowerCaseNames() {
        assertThat(Event.PUSH.wireName()).isEqualTo("push");
        assertThat(Event.PULL.wireName()).isEqualTo("pull");
        assertThat(Event.BATCH.wireName()).isEqualTo("batch");
        assertThat(Event.MANUAL.wireName()).isEqualTo("manual");
    }

    @Test
    void parseReadsEveryWireName() {
        for (Event event : Event.values()) {
            assertThat(Event.parse(event.wireName())).isEqualTo(event);
        }
    }

    @Test
    void parseRefusesAnUnknownNameAndListsTheChoices() {
        assertThatThrownBy(() -> Event.parse("pull_request"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown event 'pull_request' (use push, pull, batch, manual or schedule)");
        assertThatThrownBy(() -> Event.parse("PUSH")).hasMessageContaining("unknown event 'PUSH'");
    }
}
