package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import org.junit.jupiter.api.Test;

class HardeningTest {

    @Test
    void everyRunGetsTheOneDefaultUnlessItsCallerSaysOtherwise() {
        assertThat(RunSpec.builder("runner", "run", "image").build().hardening()).isEqualTo(Hardening.DEFAULT);
        assertThat(Hardening.DEFAULT.capabilities())
                .containsExactly("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL");
        assertThat(Hardening.DEFAULT.noNewPrivileges()).isTrue();
        assertThat(Hardening.DEFAULT.pidsLimit()).isEqualTo(256);
        assertThat(Hardening.DEFAULT.readOnlyPaths()).contains("/proc/sys", "/proc/sysrq-trigger");
        assertThat(Hardening.DEFAULT.user()).isEqualTo(Hardening.User.IMAGE_DEFAULT);
    }

    @Test
    void namesPathsAndLimitsAreChecked() {
        assertThatIllegalArgumentException().isThrownBy(() -> Hardening.DEFAULT.withCapabilities(List.of("CAP_CHOWN")))
                .withMessageContaining("CAP_CHOWN");
        assertThatIllegalArgumentException().isThrownBy(() -> Hardening.DEFAULT.withCapabilities(List.of("chown")));
        assertThatIllegalArgumentException().isThrownBy(() -> new Hardening(List.of(), true, 0, List.of(), Hardening.User.IMAGE_DEFAULT));
        assertThatIllegalArgumentException().isThrownBy(() -> new Hardening(List.of(), true, 1, List.of("proc/sys"),
                Hardening.User.IMAGE_DEFAULT));
        assertThatIllegalArgumentException().isThrownBy(() -> new Hardening.User.Ids(-1, 0));
    }
}
