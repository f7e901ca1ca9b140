package dev.knotless.runner.run.runtime;

import dev.knotless.executor.TarSource;

/** A program on the runner host that the runner brings into runs: the files under its directory there, and what it is. */
public interface HostRuntime {

    /** The files, as a tar of paths relative to the runtime's directory in the run. */
    TarSource files();

    /** What it is, for the run's log: {@code Node v24.22.3 (/usr/local/bin/node)}. */
    String describe();

    /** The command that starts it in the run, relative to its directory: {@code bin/node}. */
    String command();
}
