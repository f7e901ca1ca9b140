@NullMarked
package dev.knotless.node.cni;

import org.jspecify.annotations.NullMarked;
