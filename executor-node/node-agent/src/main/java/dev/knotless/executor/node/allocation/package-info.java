@NullMarked
package dev.knotless.executor.node.allocation;

import org.jspecify.annotations.NullMarked;
