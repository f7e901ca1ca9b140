package dev.knotless.runner.run;

import dev.knotless.checks.CheckStatus;

/** Why a run did not succeed: a final check status and its one-line reason. */
record Verdict(CheckStatus status, String reason) {}
