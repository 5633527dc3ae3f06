//! The problem codes of `gate`.

crate::problem::codes! {
    GATE_BAD_STATE => "the --state is not a state of the autonomy gate",
    GATE_BAD_EVENT => "the --event is not an event of the autonomy gate",
    GATE_BAD_MODE => "the --gates value is not open, adaptive, closed, true or false",
    GATE_BAD_EFFORT => "the --effort value is not low, standard or high",
    GATE_ILLEGAL_EVENT => "the event is not allowed in the gate's current state",
}
