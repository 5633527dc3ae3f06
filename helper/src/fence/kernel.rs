//! The kernel side of the fence: Linux Landlock, through the `landlock`
//! crate. A process restricts itself (and every process it starts after)
//! to writing only beneath the paths of its [`Grant`]s; reads, execution
//! and the network stay as they were.
//!
//! Which write rights are handled depends on the kernel's Landlock ABI: 1
//! (Linux 5.13) knows creating, removing and writing files; 2 adds moving
//! a file into another directory (`Refer`); 3 adds truncation. The fence
//! holds a step's scope only from ABI 3 on: below it, `truncate -s 0 FILE`
//! would reach any file, so an older kernel is reported as not holding
//! the scope ([`Support::holds`]) and the text judge works alone.

use super::grants::{Grant, Rights};

/// The lowest Landlock ABI whose write rights hold a step's scope.
pub(crate) const MIN_ABI: u32 = 3;

/// What the running kernel offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Support {
    /// The newest Landlock ABI whose file-system write rights the kernel
    /// has, and the fence uses (0: none). Later ABIs added no write rights.
    pub abi: u32,
    /// Why the kernel cannot fence, when it cannot.
    pub why_not: Option<String>,
}

impl Support {
    /// The fence holds a step's scope on this kernel.
    pub(crate) fn holds(&self) -> bool {
        self.why_not.is_none()
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use landlock::{
        ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, LandlockStatus, PathBeneath,
        Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
    };

    use super::{Grant, MIN_ABI, Rights, Support};

    /// The ABIs that added file-system rights, newest first.
    const FS_ABIS: [(ABI, u32); 4] = [(ABI::V5, 5), (ABI::V3, 3), (ABI::V2, 2), (ABI::V1, 1)];

    /// Asks the kernel, by creating (and dropping) a ruleset that requires
    /// each ABI's rights in turn: a few system calls, no process.
    pub(crate) fn support() -> Support {
        for (abi, number) in FS_ABIS {
            let created = Ruleset::default()
                .set_compatibility(CompatLevel::HardRequirement)
                .handle_access(AccessFs::from_all(abi))
                .and_then(|ruleset| ruleset.create());
            if created.is_ok() {
                return Support {
                    abi: number,
                    why_not: (number < MIN_ABI).then(|| {
                        format!(
                            "the kernel's Landlock ABI is {number}; holding a step's scope needs ABI {MIN_ABI} (Linux 6.2 or later), which also covers truncation"
                        )
                    }),
                };
            }
        }
        Support {
            abi: 0,
            why_not: Some(
                "the kernel has no Landlock (it needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK and `landlock` in the lsm= boot parameter)"
                    .to_owned(),
            ),
        }
    }

    /// The write rights the fence handles: every write the ABI knows,
    /// except `ioctl` on devices, which is not a write to a file and which
    /// terminals need.
    fn handled() -> BitFlags<AccessFs> {
        AccessFs::from_write(ABI::V5) & !AccessFs::IoctlDev
    }

    fn rights(rights: Rights) -> BitFlags<AccessFs> {
        match rights {
            // An existing file: written in place and truncated.
            Rights::File => AccessFs::WriteFile | AccessFs::Truncate,
            // A directory where files are made and replaced: a new file
            // needs its entry made and opening for writing; a rename over a
            // file (`sed -i`, editors) removes an entry. Not truncation, so
            // the files already there cannot be emptied by `>`.
            Rights::Entries => {
                AccessFs::MakeReg | AccessFs::RemoveFile | AccessFs::WriteFile | AccessFs::MakeDir
            }
            Rights::Tree => handled(),
        }
    }

    /// The kernel's own Landlock ABI, which may be newer than the rights the
    /// fence uses. Only the kernel's answer to a restriction says it, so
    /// this restricts the calling process from making block devices: for a
    /// process that only reports, such as `scope status`.
    pub(crate) fn kernel_abi() -> Option<u32> {
        let status = Ruleset::default()
            .handle_access(AccessFs::MakeBlock)
            .and_then(|ruleset| ruleset.create())
            .and_then(|ruleset| ruleset.restrict_self())
            .ok()?;
        abi_of(&status.landlock)
    }

    fn abi_of(status: &LandlockStatus) -> Option<u32> {
        match *status {
            LandlockStatus::Available {
                kernel_abi: Some(abi),
                ..
            } => u32::try_from(abi).ok(),
            LandlockStatus::Available { effective_abi, .. } => Some(effective_abi as u32),
            _ => None,
        }
    }

    /// Restricts this process, and all it starts from now on, to `grants`;
    /// returns the kernel's ABI as the kernel reports it. A grant whose path
    /// cannot be opened any more is skipped (it cannot be written either).
    pub(crate) fn enforce(grants: &[Grant]) -> Result<u32, String> {
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(handled())
            .and_then(|ruleset| ruleset.create())
            .map_err(|e| format!("the kernel refused a Landlock ruleset: {e}"))?;
        for grant in grants {
            let Some(fd) = &grant.fd else { continue };
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, rights(grant.rights)))
                .map_err(|e| format!("the kernel refused a rule for {}: {e}", grant.path))?;
        }
        let status = ruleset
            .restrict_self()
            .map_err(|e| format!("the kernel refused to restrict this process: {e}"))?;
        let abi = abi_of(&status.landlock).unwrap_or(0);
        match status.ruleset {
            RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced if abi >= MIN_ABI => {
                Ok(abi)
            }
            _ => Err(format!(
                "the kernel did not enforce the fence (Landlock ABI {abi}; {MIN_ABI} is needed)"
            )),
        }
    }
}

#[cfg(target_os = "linux")]
pub(crate) use linux::{enforce, kernel_abi};

/// The environment variable that turns the fence off (`off`): the user's
/// explicit choice, read from Claude Code's environment by the hook, which
/// the agent's commands cannot change.
pub(crate) const OFF_SWITCH: &str = "VOYAGE_FENCE";

/// What the kernel offers, unless the user turned the fence off.
pub(crate) fn support() -> Support {
    let support = kernel_support();
    if std::env::var(OFF_SWITCH).is_ok_and(|v| v == "off") {
        return Support {
            why_not: Some(format!("turned off by {OFF_SWITCH}=off")),
            ..support
        };
    }
    support
}

#[cfg(target_os = "linux")]
use linux::support as kernel_support;

/// Elsewhere there is no Landlock.
#[cfg(not(target_os = "linux"))]
fn kernel_support() -> Support {
    Support {
        abi: 0,
        why_not: Some(
            "Landlock is a Linux feature; on this system the text judge works alone".to_owned(),
        ),
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn kernel_abi() -> Option<u32> {
    None
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn enforce(_grants: &[Grant]) -> Result<u32, String> {
    Err(support().why_not.unwrap_or_default())
}
