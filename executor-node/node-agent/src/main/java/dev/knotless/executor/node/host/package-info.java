@NullMarked
package dev.knotless.executor.node.host;

import org.jspecify.annotations.NullMarked;
