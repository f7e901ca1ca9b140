package dev.knotless.forge.listen;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.BindException;
import org.junit.jupiter.api.Test;

class ListenFailureTest {

    @Test
    void saysTheInnermostCauseOnOneLine() {
        RuntimeException started = new RuntimeException("Port already in use. Make sure no other process is using port 80",
                new IllegalStateException("Failed to bind", new BindException("Address\n  already in use")));

        IllegalStateException e = ListenFailure.of("cannot listen on 127.0.0.1:80", started);

        assertThat(e).hasMessage("cannot listen on 127.0.0.1:80: Address already in use").hasCause(started);
    }

    @Test
    void aCauseWithoutAMessageIsNamedByItsClass() {
        assertThat(ListenFailure.of("the spindle cannot listen", new RuntimeException(new BindException())))
                .hasMessage("the spindle cannot listen: BindException");
    }
}
