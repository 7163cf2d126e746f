print("footstepd: not wired yet")
