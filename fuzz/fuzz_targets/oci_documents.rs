//! An image manifest, an image index or an image config (the same bytes are all
//! three), read as `fbc-image` reads what a registry or an OCI layout serves
//! (`fbc-pull` parses nothing itself): `parse_document` with the document limit
//! on, then the layer list after the layer limits (`blobs`) or the platform entry
//! of an index (`select_platform`, and the error that names its platforms); the
//! config's labels, the configs label's directory and that directory as the
//! unpack reads it. Holds: no panic; a parsed manifest or index printed back
//! (oci-spec's serde) parses again as the same kind of document, equal to the
//! first; the labels printed back as a config read back equal; the configs
//! directory is the label's value, byte for byte; a platform (`os/arch[/variant]`)
//! shows as it was written.
#![no_main]
use fbc_image::manifest::{self, Document, Platform, PlatformChoice};
use fbc_image::unpack::entry_path;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = fbc_fuzz::IMAGE_LIMITS;
    // What is printed back is read without the size limit: the property is about
    // the format, and the printer may spell a string differently.
    let unlimited = fbc_image::ImageLimits {
        max_document_bytes: u64::MAX,
        ..limits
    };
    match manifest::parse_document(data, &limits) {
        Ok(Document::Image(image)) => {
            let _ = manifest::blobs(&image, &limits);
            let printed = serde_json::to_vec(&image).expect("a parsed manifest prints");
            match manifest::parse_document(&printed, &unlimited) {
                Ok(Document::Image(again)) => assert_eq!(again, image, "manifest round trip"),
                Ok(Document::Index(_)) => panic!("a manifest printed back reads as an index"),
                Err(e) => panic!("a manifest printed back does not parse: {e}"),
            }
        }
        Ok(Document::Index(index)) => {
            for wanted in ["linux/amd64", "linux/arm64/v8", "linux/s390x"] {
                let Some(wanted) = Platform::parse(wanted) else {
                    continue;
                };
                if let Ok(PlatformChoice::Candidates(candidates)) =
                    manifest::select_platform(&index, &wanted)
                {
                    let _ = manifest::no_platform(&wanted, &candidates).to_string();
                    let _ = manifest::any_platform(Vec::new(), &wanted, &candidates);
                }
            }
            let printed = serde_json::to_vec(&index).expect("a parsed index prints");
            match manifest::parse_document(&printed, &unlimited) {
                Ok(Document::Index(again)) => assert_eq!(again, index, "index round trip"),
                Ok(Document::Image(_)) => panic!("an index printed back reads as a manifest"),
                Err(e) => panic!("an index printed back does not parse: {e}"),
            }
        }
        Err(_) => {}
    }
    if let Ok(labels) = manifest::labels(data, &limits) {
        let printed = serde_json::to_vec(&serde_json::json!({ "config": { "Labels": labels } }))
            .expect("labels print");
        match manifest::labels(&printed, &unlimited) {
            Ok(again) => assert_eq!(again, labels, "labels round trip"),
            Err(e) => panic!("labels printed back do not parse: {e}"),
        }
        match manifest::configs_dir(&labels) {
            Ok(dir) => {
                assert_eq!(
                    Some(&dir),
                    labels.get(manifest::CONFIGS_LABEL),
                    "the configs directory is the label's value"
                );
                let _ = entry_path::configs_root(&dir);
            }
            Err(e) => {
                assert!(!labels.contains_key(manifest::CONFIGS_LABEL));
                let _ = e.to_string();
            }
        }
    }
    // `--platform` and an index entry's platform are shown with Display.
    if let Some(text) = fbc_fuzz::text(data)
        && let Some(platform) = Platform::parse(text)
    {
        let shown = platform.to_string();
        assert_eq!(shown, text, "a platform shows as it was written");
        assert_eq!(
            Platform::parse(&shown),
            Some(platform),
            "platform round trip"
        );
    }
});
