/**
 * Reading workflow files written in YAML, for every dialect: the positioned tree ({@link
 * dev.knotless.plan.yaml.YamlTree}), the value readers with their errors ({@link
 * dev.knotless.plan.yaml.Fields}), and a commit's files read together under one bound, with the
 * checks only the whole set can make ({@link dev.knotless.plan.yaml.WorkflowFiles}). What a file
 * means is its dialect's ({@link dev.knotless.plan.yaml.YamlDialect}).
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.plan.yaml;

import org.jspecify.annotations.NullMarked;
