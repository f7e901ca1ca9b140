package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ShellPayloadTest {

    @Test
    void thePayloadExportsEachVariableInOrderThenExecsTheCommandInsideOneBraceGroup() {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("B", "it's");
        environment.put("A", "x y");

        assertThat(ShellPayload.build(environment, List.of("/bin/sh", "-e", "/steps/1")))
                .isEqualTo("{\nexport B='it'\\''s'\nexport A='x y'\nexec /bin/sh -e /steps/1\n}\n");
    }

    @Test
    void aStepPayloadBuildsFromItsEnvironmentAndCommand() {
        StepPayload step = StepPayload.script("build", 2, Map.of("CI", "true"));

        assertThat(ShellPayload.build(step)).isEqualTo("{\nexport CI='true'\nexec /bin/sh -e /steps/2\n}\n");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "/bin/sh            | /bin/sh",
        "a-b_c.d,e:f@g%h+i=j | a-b_c.d,e:f@g%h+i=j",
        "two words          | 'two words'",
        "it's               | 'it'\\''s'",
        "$HOME              | '$HOME'",
        "''                 | ''",
        "~                  | '~'",
        "*                  | '*'",
    })
    void commandWordsAreQuotedOnlyWhenNeeded(String word, String quoted) {
        assertThat(ShellPayload.quote(word.equals("''") ? "" : word)).isEqualTo(quoted);
    }

    @Test
    void theFrameStartsWithThePayloadsLengthInBytesNotCharacters() {
        Map<String, String> environment = Map.of("V", "ü😀");
        byte[] payload = ShellPayload.build(environment, List.of("true")).getBytes(StandardCharsets.UTF_8);

        byte[] frame = ShellPayload.framed(environment, List.of("true"));

        String header = payload.length + "\n";
        assertThat(new String(frame, 0, header.length(), StandardCharsets.US_ASCII)).isEqualTo(header);
        assertThat(java.util.Arrays.copyOfRange(frame, header.length(), frame.length)).isEqualTo(payload);
        assertThat(payload.length).isGreaterThan(ShellPayload.build(environment, List.of("true")).length());
    }

    @Test
    void theReceiverIsAShellCommandLineThatHoldsNoValues() {
        assertThat(ShellPayload.receiver()).containsExactly("/bin/sh", "-c", ShellPayload.RECEIVER_SCRIPT);
        assertThat(ShellPayload.receiver(List.of("/bin/busybox", "sh")))
                .containsExactly("/bin/busybox", "sh", "-c", ShellPayload.RECEIVER_SCRIPT);
    }

    @Test
    void aVariableNameThatIsNotAShellIdentifierIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ShellPayload.build(Map.of("A;rm -rf /", "x"), List.of("true")))
                .withMessageContaining("is not a shell identifier");
    }

    @Test
    void aValueWithNulIsRefusedWithoutShowingIt() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ShellPayload.build(Map.of("TOKEN", "hunter2\0"), List.of("true")))
                .withMessage("variable TOKEN contains a NUL byte, which no environment can carry");
    }

    @Test
    void anEmptyCommandIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ShellPayload.build(Map.of(), List.of()))
                .withMessage("a step needs a command");
    }
}
