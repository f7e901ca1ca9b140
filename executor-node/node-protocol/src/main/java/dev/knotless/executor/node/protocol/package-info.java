@NullMarked
package dev.knotless.executor.node.protocol;

import org.jspecify.annotations.NullMarked;
