package dev.knotless.atproto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class RecordKeysTest {

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._:~-]{1,512}");

    @Test
    void aRunIdThatIsAValidKeyIsTheKey() {
        assertThat(RecordKeys.of("20261203-130837-af16fa")).isEqualTo("20261203-130837-af16fa");
        assertThat(RecordKeys.of("run_1.2:3")).isEqualTo("run_1.2:3");
    }

    @Test
    void otherBytesAreEscapedSoThatKeysAreValidAndNeverShared() {
        List<String> ids = List.of("a/b", "a~2Fb", "a b", "ä", "~", ".", "..", "a%2Fb");
        Set<String> keys = new HashSet<>();
        for (String id : ids) {
            String key = RecordKeys.of(id);
            assertThat(key).matches(VALID).isNotIn(".", "..");
            keys.add(key);
        }
        assertThat(keys).hasSameSizeAs(ids);
        assertThat(RecordKeys.of("a/b")).isEqualTo("a~2Fb");
        assertThat(RecordKeys.of("a~2Fb")).isEqualTo("a~7E2Fb");
    }

    @Test
    void anEmptyOrOverlongIdIsRefused() {
        assertThatThrownBy(() -> RecordKeys.of("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecordKeys.of("x".repeat(513))).hasMessageContaining("too long");
        assertThat(RecordKeys.of("x".repeat(512))).hasSize(512);
    }
}
