package dev.knotless.runner.daemon;

import dev.knotless.forge.ForgeEvent;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.text.OneLine;

/** How the daemon's log lines name runs, events and failures. */
final class DaemonWords {

    private DaemonWords() {}

    static String describe(RunRecord r) {
        return r.repo() + " " + r.workflow() + " " + r.event().wireName() + " " + r.ref() + "@" + shortSha(r.commit())
                + " run " + r.id();
    }

    static String describe(ForgeEvent event) {
        return switch (event) {
            case ForgeEvent.Push p -> p.repo() + " push " + p.ref() + "@" + shortSha(p.after());
            case ForgeEvent.PullRequest p -> p.repo() + " pull #" + p.number() + " " + p.headRef() + "@" + shortSha(p.headSha())
                    + " by " + p.author() + (p.authorTrusted() ? " (trusted)" : " (untrusted)") + " into " + p.targetBranch();
            case ForgeEvent.QueueEntry q -> q.repo() + " queue #" + q.number() + " into " + q.targetBranch();
            case ForgeEvent.Pipeline p -> p.repo() + " pipeline " + p.id() + " (" + p.event().wireName() + " " + p.ref() + "@"
                    + shortSha(p.commit()) + ")";
        };
    }

    static String shortSha(String sha) {
        return sha.substring(0, Math.min(12, sha.length()));
    }

}
