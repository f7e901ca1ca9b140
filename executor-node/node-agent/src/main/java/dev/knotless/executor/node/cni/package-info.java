@NullMarked
package dev.knotless.executor.node.cni;

import org.jspecify.annotations.NullMarked;
