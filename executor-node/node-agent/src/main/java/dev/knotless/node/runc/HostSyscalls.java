package dev.knotless.node.runc;

import java.util.Optional;

/** The numbers of the system calls the Perl launchers make raw, on this machine's architecture. */
record HostSyscalls(String rtSigaction, String setsid) {

    static Optional<HostSyscalls> ofThisMachine() {
        return switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> Optional.of(new HostSyscalls("13", "112"));
            case "aarch64" -> Optional.of(new HostSyscalls("134", "157"));
            default -> Optional.empty();
        };
    }
}
