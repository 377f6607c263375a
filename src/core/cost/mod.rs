//! What a session costs as the provider bills it: the models' prices (an
//! asset table the user's file may override), jp's prompt-cache policy as
//! each provider applies it, and the bill of a run of requests.

pub mod billing;
pub mod payback;
pub mod prices;

pub use billing::{Bill, Billed, Billing, Break, Sent, Total, Unit, bill};
pub use payback::Payback;
pub use prices::Prices;
