struct GameAttributes {
    var opponent: String
}
