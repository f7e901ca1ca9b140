package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a step in a session sees of the network: its interfaces, and which of the host's
 * addresses (and its default gateway) it reached the {@link HostListener} on, with BusyBox
 * {@code nc}.
 */
record NetworkProbe(List<String> interfaces, List<String> reached) {

    /** {@code sh -c PROBE probe PORT ADDRESS...}: "if NAME" per interface, "reached ADDRESS" per connection. */
    static final String PROBE = String.join("\n",
            "port=$1; shift",
            "for i in /sys/class/net/*; do echo \"if ${i##*/}\"; done",
            // the default route's gateway, little-endian hex in /proc/net/route
            "g=$(awk '$2 == \"00000000\" { print $3; exit }' /proc/net/route 2>/dev/null)",
            "[ -n \"$g\" ] && set -- \"$@\" \"$((0x${g#??????})).$((0x$(echo $g | cut -c5-6))).$((0x$(echo $g | cut -c3-4))).$((0x${g%??????}))\"",
            "for a in \"$@\"; do nc -w 2 \"$a\" \"$port\" </dev/null >/dev/null 2>&1 && echo \"reached $a\"; done",
            "true");

    static NetworkProbe of(Session session, HostListener listener) throws Exception {
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", PROBE, "probe", Integer.toString(listener.port())));
        command.addAll(HostListener.addresses());
        RecordingOutput out = new RecordingOutput();
        assertThat(session.run(new StepPayload("network probe", command, Map.of()), out, StopSignal.none()))
                .as(out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        List<String> interfaces = new ArrayList<>();
        List<String> reached = new ArrayList<>();
        out.stdout().lines().forEach(line -> {
            if (line.startsWith("if ")) {
                interfaces.add(line.substring(3));
            } else if (line.startsWith("reached ")) {
                reached.add(line.substring(8));
            }
        });
        return new NetworkProbe(interfaces, reached);
    }

    boolean hasNetwork() {
        return interfaces.stream().anyMatch(i -> !i.equals("lo"));
    }
}
