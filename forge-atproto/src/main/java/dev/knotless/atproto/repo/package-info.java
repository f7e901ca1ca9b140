/**
 * Reading a record's proof as a PDS serves it ({@code com.atproto.sync.getRecord}): a CAR file of
 * DAG-CBOR blocks holding the signed commit, the MST nodes on the path to the record and the
 * record, decoded strictly and within bounds, and checked from the signature down to the record.
 * Uses nothing of ours.
 */
@NullMarked
package dev.knotless.atproto.repo;

import org.jspecify.annotations.NullMarked;
