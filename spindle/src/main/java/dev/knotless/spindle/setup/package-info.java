/**
 * Who the spindle serves, from tangled's records: the owner's {@code sh.tangled.spindle} and
 * {@code sh.tangled.spindle.member} records, and the {@code sh.tangled.repo} records of the owner
 * and members that choose this spindle ({@link dev.knotless.spindle.setup.SpindleRecords}); kept
 * current by {@link dev.knotless.spindle.setup.SpindleDirectory}, which a firehose or a
 * {@link dev.knotless.spindle.setup.Jetstream} tells which accounts changed.
 */
@NullMarked
package dev.knotless.spindle.setup;

import org.jspecify.annotations.NullMarked;
