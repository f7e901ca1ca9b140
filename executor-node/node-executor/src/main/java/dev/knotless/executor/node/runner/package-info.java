@NullMarked
package dev.knotless.executor.node.runner;

import org.jspecify.annotations.NullMarked;
