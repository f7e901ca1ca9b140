package dev.knotless.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BookingTest {

    @Test
    void aBookingTravelsAsLabelsTheProtocolCarries() {
        Booking booking = new Booking(1500, 4L << 30, true);
        assertThat(booking.labels()).containsExactly(Map.entry(Booking.CPU, "1500"), Map.entry(Booking.MEMORY, "4294967296"),
                Map.entry(Booking.EXCLUSIVE, "true"));
        assertThat(Names.labels(booking.labels())).isEqualTo(booking.labels());
        assertThat(Booking.of(booking.labels())).isEqualTo(booking);
        assertThat(Booking.NONE.labels()).isEmpty();
    }

    @Test
    void labelsOfAnotherRunnerThatAreNotPlainNumbersBookNothing() {
        assertThat(Booking.of(Map.of(Booking.CPU, "-5", Booking.MEMORY, "9".repeat(40), Booking.EXCLUSIVE, "yes")))
                .isEqualTo(Booking.NONE);
        assertThat(Booking.of(Map.of("dev.knotless.run", "r1"))).isEqualTo(Booking.NONE);
    }

    @Test
    void bookingsAddUpAndOneExclusiveMakesTheSumExclusive() {
        assertThat(new Booking(500, 1, false).plus(new Booking(250, 2, true))).isEqualTo(new Booking(750, 3, true));
    }
}
