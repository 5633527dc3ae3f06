//! The problem codes of `stats` and `event emit`.

crate::problem::codes! {
    STATS_STDIN_UNREADABLE => "stdin cannot be read",
    STATS_TOO_LARGE => "the record or payload is larger than the helper takes",
    STATS_NOT_JSON => "the record or payload is not JSON",
    STATS_NOT_OBJECT => "the record or payload is not one JSON object",
    STATS_BAD_RECORD => "the record is not one its schema (stats-record) accepts",
    STATS_BAD_KIND => "the kind is not a name the stats files take",
    STATS_BAD_EVENT_NAME => "the event name is not one the event log takes",
    STATS_NO_DATA_DIR => "no data directory could be found from the environment",
    STATS_UNREADABLE => "a stats file cannot be read",
    STATS_UNWRITABLE => "the stats file or its directory cannot be created",
    STATS_LOCK_TIMEOUT => "another writer held the stats file's lock too long",
    STATS_LOCK_FAILED => "the stats file cannot be locked",
    STATS_WRITE_FAILED => "the record cannot be written",
}
