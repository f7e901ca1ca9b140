package example.shop;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Orders kept in a PostgreSQL table: placed one by one, totalled per customer. */
public final class Orders {

    private final Connection connection;

    public Orders(Connection connection) {
        this.connection = connection;
    }

    /** Makes the table when it is not there yet. */
    public void create() throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("create table if not exists orders (id serial primary key, customer text not null, cents integer not null)");
        }
    }

    public void place(String customer, int cents) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("insert into orders (customer, cents) values (?, ?)")) {
            s.setString(1, customer);
            s.setInt(2, cents);
            s.executeUpdate();
        }
    }

    /** What {@code customer} has ordered in all, in cents. */
    public long total(String customer) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("select coalesce(sum(cents), 0) from orders where customer = ?")) {
            s.setString(1, customer);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }
}
