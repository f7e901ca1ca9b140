@NullMarked
package dev.knotless.executor.node.channel;

import org.jspecify.annotations.NullMarked;
