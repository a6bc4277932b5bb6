//! The diagnostics of discovering rules and skills: each code, its severity and when it is raised.
//!
//! Every diagnostic this module raises is made from one of these; `crate::diagnostic_codes()` lists
//! them all, and the README's Diagnostics table documents each.

contextview::declare_codes! {
    DISCOVERY_CWD_UNREADABLE = "discovery.cwd_unreadable", Error, "the working directory cannot be listed";
    FS_UNREADABLE = "fs.unreadable", Warning, "a file or directory the host could not read";
    FS_INVALID_UTF8 = "fs.invalid_utf8", Warning, "a file that is not valid UTF-8; read with replacement characters";
    FS_SYMLINK_LOOP = "fs.symlink_loop", Warning, "symlinks that form a loop, or more than 8 in a row; not followed";
    FRONTMATTER_TOO_COMPLEX = "frontmatter.too_complex", Warning, "frontmatter refused by the YAML parser's limits (anchors, nesting, size)";
    FRONTMATTER_REPAIRED = "frontmatter.repaired", Warning, "frontmatter that is not valid YAML, read by taking the offending values as plain text";
    FRONTMATTER_INVALID = "frontmatter.invalid", Warning, "frontmatter that cannot be parsed, even repaired";
    RULES_OVERRIDDEN = "rules.overridden", Info, "an AGENTS.md next to an AGENTS.override.md, which stands in for it";
    RULES_WALK_DEPTH = "rules.walk_depth", Warning, "a rule directory deeper than `limits.walkDepth`; not walked";
    RULES_DUPLICATE = "rules.duplicate", Info, "a rule file that is the same file as one already loaded (a link or a second name)";
    RULES_LINK_FILE = "rules.link_file", Info, "a rule file that holds only the name of another file; read as a link to it";
    RULES_TRUNCATED = "rules.truncated", Warning, "a rule file over `limits.ruleFileBytes`; the rest is not loaded";
    RULES_ONLY_IMPORTS = "rules.only_imports", Info, "a rule file that only imports files already loaded; it adds nothing";
    RULES_IMPORT_TOO_DEEP = "rules.import_too_deep", Warning, "an `@import` more than `limits.importHops` hops from its rule file; not followed";
    RULES_IMPORT_CYCLE = "rules.import_cycle", Info, "an `@import` of a file already loaded (a cycle or a repeat); not loaded twice";
    RULES_IMPORT_MISSING = "rules.import_missing", Warning, "an `@import` of a file that does not exist";
    RULES_OVER_TOTAL_BUDGET = "rules.over_total_budget", Warning, "rules past `limits.ruleTotalBytes`; the broadest are cut, then left out";
    RULES_NEUTRALIZED = "rules.neutralized", Info, "rule text that could open or close the framing tags; defused";
    RULES_BAD_PATHS = "rules.bad_paths", Warning, "a Claude rule's `paths` that is not a list of globs; the rule is loaded always";
    RULES_BAD_ALWAYS_APPLY = "rules.bad_always_apply", Warning, "a Cursor rule's `alwaysApply` that is not a boolean; read as false";
    SKILLS_BAD_PLUGIN_NAME = "skills.bad_plugin_name", Error, "a plugin whose name is not a plain name; its skills are skipped";
    SKILLS_WALK_DEPTH = "skills.walk_depth", Info, "a skill directory deeper than `limits.walkDepth`; not walked";
    SKILLS_SKIPPED = "skills.skipped", Warning, "a SKILL.md whose frontmatter cannot be parsed; the skill is skipped";
    SKILLS_FRONTMATTER_TOO_LONG = "skills.frontmatter_too_long", Warning, "a SKILL.md whose frontmatter runs past `limits.frontmatterBytes`; the skill is skipped";
    SKILLS_MISSING_DESCRIPTION = "skills.missing_description", Warning, "a SKILL.md with no description, or an empty one; the skill is skipped";
    SKILLS_NON_STRING_VALUE = "skills.non_string_value", Warning, "a `name` or `description` that is not a string; read as text, or the directory name used";
    SKILLS_DESCRIPTION_TOO_LONG = "skills.description_too_long", Warning, "a description over 1,024 characters";
    SKILLS_UNSAFE_NAME = "skills.unsafe_name", Warning, "a name that could name another path; the directory name is used";
    SKILLS_MISSING_NAME = "skills.missing_name", Info, "a SKILL.md with no `name`; the directory name is used";
    SKILLS_INVALID_NAME = "skills.invalid_name", Warning, "a name that breaks the Agent Skills naming rules (lowercase, digits, hyphens, ≤ 64)";
    SKILLS_NAME_MISMATCH = "skills.name_mismatch", Warning, "a name that differs from its directory";
    SKILLS_COMPATIBILITY_TOO_LONG = "skills.compatibility_too_long", Warning, "`compatibility` over 500 characters";
    SKILLS_BAD_METADATA = "skills.bad_metadata", Warning, "`metadata` that is not a map of strings";
    SKILLS_UNKNOWN_FIELD = "skills.unknown_field", Info, "a frontmatter key the Agent Skills format does not define";
    SKILLS_DISABLED = "skills.disabled", Info, "a skill the settings disable";
    SKILLS_PLUGIN_SHADOWED = "skills.plugin_shadowed", Info, "a plugin skill whose name is taken; reachable by its qualified name `plugin:name`";
    SKILLS_SHADOWED = "skills.shadowed", Info, "a skill whose name a higher-priority root already took";
    SKILLS_LISTING_OVER_BUDGET = "skills.listing_over_budget", Warning, "skills past `limits.skillListingBytes`; left out of the listing (each description is cut at `limits.skillEntryBytes`)";
    SKILLS_TRUNCATED = "skills.truncated", Warning, "a skill body cut at `limits.maxFileBytes` when loaded";
}
