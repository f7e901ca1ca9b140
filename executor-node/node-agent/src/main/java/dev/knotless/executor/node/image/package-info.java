@NullMarked
package dev.knotless.executor.node.image;

import org.jspecify.annotations.NullMarked;
