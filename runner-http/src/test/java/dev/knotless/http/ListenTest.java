package dev.knotless.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ListenTest {

    @Test
    void hostAndPortOrPortAloneOnLoopback() {
        assertThat(Listen.parse("127.0.0.1:8080")).isEqualTo(new Listen("127.0.0.1", 8080));
        assertThat(Listen.parse(":9000")).isEqualTo(new Listen("127.0.0.1", 9000));
        assertThat(Listen.parse("9000")).isEqualTo(new Listen("127.0.0.1", 9000));
        assertThat(Listen.parse("[::1]:7420")).isEqualTo(new Listen("::1", 7420));
        assertThat(Listen.parse("[::1]:7420").toString()).isEqualTo("[::1]:7420");
        assertThat(Listen.parse(Listen.DEFAULT).loopback()).isTrue();
        assertThat(Listen.parse("localhost:1").loopback()).isTrue();
        assertThat(Listen.parse("[::1]:1").loopback()).isTrue();
        assertThat(Listen.parse("0.0.0.0:7420").loopback()).isFalse();
    }

    @Test
    void anythingElseIsOneLine() {
        assertThatThrownBy(() -> Listen.parse("host:http")).hasMessage("'host:http' is not HOST:PORT: 'http' is not a port number");
        assertThatThrownBy(() -> Listen.parse("::1:80")).hasMessageContaining("an IPv6 host goes in brackets");
        assertThatThrownBy(() -> Listen.parse("h:70000")).hasMessage("port 70000 is not between 0 and 65535");
        assertThatThrownBy(() -> Listen.parse(":")).hasMessageContaining("is not a port number");
    }
}
