package dev.knotless.node.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The bytes that travel beside an action on its stream: an upload's tar comes in after the
 * signed frame, a download's tar and a step's output go back before the signed answer. The
 * action authorises them; the channel they travel on is the authenticated one the frame came on.
 */
public interface Attachment {

    /** What followed the frame (an upload's tar); empty for other actions. */
    InputStream body();

    /** Where a download's tar goes. */
    OutputStream data();

    /** Where a step's output goes, as it is produced. */
    StepOutput output();

    /** A step's output on its way to the runner; a failed write means the runner is gone. */
    interface StepOutput {
        void stdout(byte[] buffer, int offset, int length) throws IOException;

        void stderr(byte[] buffer, int offset, int length) throws IOException;
    }

    /** No body, and everything sent is dropped: for actions that carry no bytes. */
    Attachment NONE = new Attachment() {
        @Override
        public InputStream body() {
            return InputStream.nullInputStream();
        }

        @Override
        public OutputStream data() {
            return OutputStream.nullOutputStream();
        }

        @Override
        public StepOutput output() {
            return new StepOutput() {
                @Override
                public void stdout(byte[] buffer, int offset, int length) {}

                @Override
                public void stderr(byte[] buffer, int offset, int length) {}
            };
        }
    };
}
