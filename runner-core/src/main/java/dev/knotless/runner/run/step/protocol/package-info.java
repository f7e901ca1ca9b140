/**
 * The step protocol: how a step hands values back to the run, for a workflow whose plan says so
 * ({@link dev.knotless.plan.StepFiles}): files made empty before each step and read after it
 * ({@link dev.knotless.runner.run.step.protocol.StepFileLayout},
 * {@link dev.knotless.runner.run.step.protocol.HandedFiles}, {@link dev.knotless.runner.run.step.protocol.EnvFile}),
 * workflow commands read from its output as it comes ({@link dev.knotless.runner.run.step.protocol.CommandLines},
 * {@link dev.knotless.runner.run.step.protocol.WorkflowCommand}, {@link dev.knotless.runner.run.step.protocol.StepCommands}),
 * and what the run keeps of it for the steps after ({@link dev.knotless.runner.run.step.protocol.HandedBack}).
 * Everything here goes through the session's upload, run and download only, so every executor
 * carries it out the same way. The rules are GitHub Actions' runner's, where it has them
 * (docs/design/github-actions.md, "The step protocol").
 */
@NullMarked
package dev.knotless.runner.run.step.protocol;

import org.jspecify.annotations.NullMarked;
