"""models/device_train.sh, the prepared GPU run, where no GPU is needed: its recipe
overrides are a valid recipe; `stage` packs the mix losslessly, sets the big tracked
files aside and `restore` puts them back; `unpack` refuses a damaged part; wrong
arguments get a clear error. (Its device step ran on the CPU by hand: models/README.md,
"Everyday models".)"""
import lzma
import os
import shutil
import subprocess

from softalign_ref.train import load_recipe

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "models", "device_train.sh")
RECIPE = os.path.join(ROOT, "models", "recipes", "everyday-joint.yaml")


def run(args, cwd, **env):
    return subprocess.run(["bash", SCRIPT, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **env})


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def test_the_device_overrides_are_a_valid_recipe():
    r = run(["overrides", "6"], ROOT)
    assert r.returncode == 0, r.stderr
    rec = load_recipe(RECIPE, r.stdout.split())
    tr = rec["training"]
    assert tr["batch_tokens"] == 12000 and tr["softmax_candidates"] == 0
    assert tr["lr_decay_minutes"] == [3.6, 4.5, 5.25]
    assert tr["eval_every"] == 0 and tr["lr"] == 2.0e-3


def make_repo(tmp_path):
    """A git repository shaped like the project's root, as far as the script looks."""
    repo = tmp_path / "repo"
    (repo / "models" / "recipes").mkdir(parents=True)
    shutil.copy(RECIPE, repo / "models" / "recipes")
    (repo / "models" / "train.py").write_text("")
    (repo / "weights.bin").write_bytes(os.urandom(1_200_000))     # tracked, over 1 MB
    (repo / "small.txt").write_text("stays\n")
    (repo / ".gitignore").write_text("/runs/\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    mix = repo / "runs" / "mix" / "en-de"
    mix.mkdir(parents=True)
    lines = {"en": "".join(f"A cow number {i}.\n" for i in range(3000)),
             "de": "".join(f"Eine Kuh Nummer {i}.\n" for i in range(3000))}
    for side, text in lines.items():
        (mix / f"train.{side}").write_text(text)
        (mix / f"dev.{side}").write_text(text[:200])
    tok = tmp_path / "train" / "tok-en-de" / "16000"
    tok.mkdir(parents=True)
    (tok / "spm.model").write_bytes(b"tokenizer")
    return repo, lines


def test_stage_packs_the_mix_and_restore_puts_the_tree_back(tmp_path):
    repo, lines = make_repo(tmp_path)
    r = run(["stage", str(tmp_path / "train"), "en-de"], repo)
    assert r.returncode == 0, r.stderr
    assert "travels: tree" in r.stdout
    pay = repo / ".devtrain" / "en-de"
    for side, text in lines.items():
        assert lzma.open(pay / f"train.{side}.xz").read().decode() == text
        assert (pay / f"dev.{side}").exists()
    assert (pay / "spm.model").read_bytes() == b"tokenizer"
    assert not (repo / "weights.bin").exists() and (repo / ".devtrain-aside" / "weights.bin").exists()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    assert status.splitlines() == [" D weights.bin"]        # the payload folders are ignored
    r = run(["restore"], repo)
    assert r.returncode == 0, r.stderr
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    assert status == "" and (repo / "weights.bin").stat().st_size == 1_200_000


def test_unpack_refuses_a_damaged_part(tmp_path):
    repo, _ = make_repo(tmp_path)
    assert run(["stage", str(tmp_path / "train"), "en-de"], repo).returncode == 0
    files = tmp_path / "back" / "en-de"
    files.mkdir(parents=True)
    (files / "model.fp16.safetensors.part0").write_bytes(b"weights")
    subprocess.run("sha256sum model.fp16.safetensors.part0 > parts.sha256", shell=True, cwd=files, check=True)
    (files / "model.fp16.safetensors.part0").write_bytes(b"weighty")
    r = run(["unpack", str(files), str(tmp_path / "model")], repo)
    assert r.returncode == 1 and "does not match parts.sha256" in r.stderr
    assert not (tmp_path / "model").exists()
    run(["restore"], repo)


def test_wrong_arguments_get_a_clear_error(tmp_path):
    repo, _ = make_repo(tmp_path)
    r = run(["launch"], repo)
    assert r.returncode == 1 and r.stderr.startswith("device_train: usage:")
    r = run(["stage", str(tmp_path / "train"), "en-xx"], repo)
    assert r.returncode == 1 and "runs/mix/en-xx: no train.en/.xx" in r.stderr
    assert (repo / "weights.bin").exists()                     # nothing set aside
    r = run(["device"], repo)
    assert r.returncode == 1 and ".devtrain: missing or empty" in r.stderr
    r = run(["back", "en-de"], repo)
    assert r.returncode == 1 and "no weights packed" in r.stderr
    r = run(["stage"], tmp_path)                                # not the repository root
    assert r.returncode == 1 and "repository root" in r.stderr
