//! The policies known by name, for JavaScript: the CLI's `--policy`, the inspector's pruning
//! choice and a host's own menu read them here, so the names and what each does are written once,
//! in [`contextview::simulate::PolicyName`].

use wasm_bindgen::prelude::*;

use super::ts;
use contextview_js::cross::{error, string, typed};
use contextview::simulate::PolicyName;

/// Every policy known by name (`default`, `eager`, `off`), with what it does and the build
/// options it lays over a simulation's; each can be passed to `simulate` as it is.
#[wasm_bindgen]
pub fn policies() -> Result<Vec<ts::Policy>, JsValue> {
    PolicyName::ALL.iter().map(|name| typed(&name.policy())).collect()
}

/// The policy known by `name`; any other name is refused (`invalid_argument`) with the names
/// there are.
#[wasm_bindgen]
pub fn policy(#[wasm_bindgen(unchecked_param_type = "PolicyName | string")] name: JsValue) -> Result<ts::Policy, JsValue> {
    let name: PolicyName = string(&name, "name")?.parse().map_err(|e: contextview::simulate::UnknownPolicy| error(contextview::error_codes::INVALID_ARGUMENT, &e.to_string()))?;
    typed(&name.policy())
}
