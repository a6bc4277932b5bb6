//! The facade's TypeScript names for the core's types.
//!
//! The core knows no JavaScript, so its types carry no TypeScript: each type a function of the
//! facade takes or returns is named here as an imported JS type whose `typescript_type` is the
//! name it has in the `.d.ts` — `ts::Report` is "a `Report`" to TypeScript and a plain
//! `JsValue` to Rust. What each name means is declared in `types.d.ts`, beside this file, which
//! both modules' `.d.ts` include. The value itself crosses as JSON ([`crate::cross`]).

use wasm_bindgen::prelude::*;

/// A Rust type with a TypeScript name: what [`crate::cross::typed`] converts it to.
pub trait JsTyped {
    type Js: JsCast;
}

/// Declares TypeScript names: `Name = rust::Type;` makes `Name` an imported JS type called
/// `Name` in TypeScript and gives `rust::Type` that name (`JsTyped`); `Name;` names a type the
/// Rust side only ever takes as a plain JS value.
#[macro_export]
macro_rules! ts_names {
    ($($name:ident $(= $rust:ty)?;)*) => {
        #[::wasm_bindgen::prelude::wasm_bindgen]
        extern "C" {
            $(
                #[wasm_bindgen(typescript_type = $name)]
                pub type $name;
            )*
        }
        $($(impl $crate::ts::JsTyped for $rust {
            type Js = $name;
        })?)*
    };
}

ts_names! {
    AckResult = contextview::session::AckResult;
    AnswerSummary = contextview::answer::AnswerSummary;
    BuildInput = contextview::request::BuildInput;
    Command = contextview::session::Command;
    ContextUsage = contextview::view::ContextUsage;
    CostModel = contextview::cost::CostModel;
    Diagnostic = contextview::diagnostic::Diagnostic;
    Effect = contextview::session::Effect;
    Endpoint = contextview::provider::endpoint::Endpoint;
    EndpointInput = contextview::provider::endpoint::EndpointInput;
    Heads = contextview::prompt::Heads;
    Limits = contextview::provider::Limits;
    PersistOutcome = contextview::session::PersistOutcome;
    PersistenceStatus = contextview::session::PersistenceStatus;
    Policy = contextview::simulate::Policy;
    Processed = contextview::session::Processed;
    PromptContext = contextview::prompt::PromptContext;
    ProviderAnswer = contextview::session::protocol::ProviderAnswer;
    Reconciled = contextview::session::Reconciled;
    Reminder = contextview::view::Reminder;
    Replay = contextview::update::Replay;
    SessionSnapshot = contextview::session::SessionSnapshot;
    SessionState = contextview::session::SessionState;
    SimulateInput = contextview::simulate::SimulateInput;
    Simulation = contextview::simulate::Simulation;
    SubagentStart = contextview::session::SubagentStart;
    WorkspaceStats = contextview::workspace::WorkspaceStats;
    Violation = contextview::provider::Violation;
}
